import { describe, expect, it } from 'vitest';
import { SearchLanes } from './search-lanes.js';

/** Lets every settled promise's callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('SearchLanes', () => {
  it('runs as many searches at once as it has lanes; the next waits for a release', async () => {
    const lanes = new SearchLanes(2);
    const first = await lanes.enter('a');
    await lanes.enter('b');
    let third = false;
    const waiting = lanes.enter('c').then(() => {
      third = true;
    });
    await settle();
    expect(third).toBe(false);
    expect(lanes.waiting).toBe(1);
    first();
    first(); // a second call gives back nothing more
    await waiting;
    expect(third).toBe(true);
    expect(lanes.waiting).toBe(0);
  });

  it('serves waiting keys in turn, so a key with a burst queued does not hold back another key', async () => {
    const lanes = new SearchLanes(1);
    const running = await lanes.enter('busy');
    const order: string[] = [];
    const queued = [
      ...['busy-1', 'busy-2', 'busy-3'].map((name) => ({ key: 'busy', name })),
      { key: 'quiet', name: 'quiet-1' },
    ].map(({ key, name }) =>
      lanes.enter(key).then((release) => {
        order.push(name);
        release();
      }),
    );
    running();
    await Promise.all(queued);
    expect(order).toEqual(['busy-1', 'quiet-1', 'busy-2', 'busy-3']);
  });

  it('drops a waiter whose signal aborts, with the signal’s reason, and keeps its place for the others', async () => {
    const lanes = new SearchLanes(1);
    const running = await lanes.enter('a');
    const controller = new AbortController();
    const abandoned = lanes.enter('b', controller.signal);
    const next = lanes.enter('c');
    controller.abort(new Error('request timed out'));
    await expect(abandoned).rejects.toThrow('request timed out');
    expect(lanes.waiting).toBe(1);
    running();
    const release = await next;
    release();
    await expect(lanes.enter('d', AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });

  it('gives the lane back when the work fails', async () => {
    const lanes = new SearchLanes(1);
    await expect(
      lanes.run('a', undefined, async () => {
        throw new Error('search failed');
      }),
    ).rejects.toThrow('search failed');
    expect(await lanes.run('a', undefined, async () => 'ran')).toBe('ran');
  });

  it('refuses a number of lanes that is not a positive integer', () => {
    expect(() => new SearchLanes(0)).toThrow(RangeError);
    expect(() => new SearchLanes(1.5)).toThrow(RangeError);
  });
});
