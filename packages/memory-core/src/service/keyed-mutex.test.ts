import { describe, expect, it } from 'vitest';
import { KeyedMutex } from './keyed-mutex.js';

describe('KeyedMutex', () => {
  it('runs work on one key one at a time, in arrival order, and other keys concurrently', async () => {
    const mutex = new KeyedMutex();
    const events: string[] = [];
    let releaseFirst!: () => void;
    const gate = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const first = mutex.run('a', async () => {
      events.push('a1 start');
      await gate;
      events.push('a1 end');
    });
    const second = mutex.run('a', async () => {
      events.push('a2');
    });
    await mutex.run('b', async () => {
      events.push('b');
    });
    expect(events).toEqual(['a1 start', 'b']);
    releaseFirst();
    await Promise.all([first, second]);
    expect(events).toEqual(['a1 start', 'b', 'a1 end', 'a2']);
  });
  it('releases the key when work throws', async () => {
    const mutex = new KeyedMutex();
    await expect(mutex.run('a', async () => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(mutex.run('a', async () => 'ok')).resolves.toBe('ok');
  });
});
