import { describe, expect, it } from 'vitest';
import { runConcurrentClients } from './concurrent-clients.js';

/** Tasks that wait until the test releases them, so the number in flight can be observed. */
function gatedTasks() {
  const started: number[] = [];
  const releases: (() => void)[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const task = (index: number) =>
    new Promise<void>((resolve) => {
      started.push(index);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      releases.push(() => {
        inFlight--;
        resolve();
      });
    });
  return {
    task,
    started,
    get maxInFlight() {
      return maxInFlight;
    },
    /** Releases every waiting task, repeatedly, until `done` settles. */
    async drain(done: Promise<unknown>) {
      let settled = false;
      const watched = done.then(
        () => {
          settled = true;
        },
        () => {
          settled = true;
        },
      );
      while (!settled) {
        for (const release of releases.splice(0)) release();
        await new Promise((resolve) => setImmediate(resolve));
      }
      await watched;
    },
  };
}

describe('runConcurrentClients', () => {
  it('runs every index once, in order of hand-out, with exactly `clients` tasks in flight', async () => {
    const gated = gatedTasks();
    const done = runConcurrentClients(3, 10, gated.task);
    await new Promise((resolve) => setImmediate(resolve));
    expect(gated.started).toEqual([0, 1, 2]);
    await gated.drain(done);
    expect(gated.started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(gated.maxInFlight).toBe(3);
  });

  it('starts no more clients than tasks, and none for zero tasks', async () => {
    const gated = gatedTasks();
    const done = runConcurrentClients(32, 2, gated.task);
    await gated.drain(done);
    expect(gated.started).toEqual([0, 1]);
    expect(gated.maxInFlight).toBe(2);
    const calls: number[] = [];
    await runConcurrentClients(4, 0, async (index) => {
      calls.push(index);
    });
    expect(calls).toEqual([]);
  });

  it('stops handing out work after a failure and rejects with the first error', async () => {
    const calls: number[] = [];
    const run = runConcurrentClients(2, 100, async (index) => {
      calls.push(index);
      if (index === 3) throw new Error('search failed');
    });
    await expect(run).rejects.toThrow('search failed');
    expect(calls.length).toBeLessThan(10);
  });

  it('rejects a client count below one', async () => {
    await expect(runConcurrentClients(0, 5, async () => {})).rejects.toThrow(RangeError);
  });
});
