import { describe, expect, it } from 'vitest';
import { raceAbort } from './race-abort.js';

describe('raceAbort', () => {
  it('settles like the work when the signal stays quiet', async () => {
    await expect(raceAbort(Promise.resolve(7), new AbortController().signal)).resolves.toBe(7);
    await expect(raceAbort(Promise.reject(new Error('x')), new AbortController().signal)).rejects.toThrow(
      'x',
    );
  });
  it('rejects with the abort reason at once, even when the work never settles, and swallows a late failure', async () => {
    const controller = new AbortController();
    let fail!: (error: Error) => void;
    const work = new Promise<never>((_, reject) => {
      fail = reject;
    });
    const raced = raceAbort(work, controller.signal);
    controller.abort(new Error('deadline'));
    await expect(raced).rejects.toThrow('deadline');
    fail(new Error('late'));
    await new Promise((resolve) => setTimeout(resolve, 0));
    await expect(raceAbort(Promise.resolve(1), controller.signal)).rejects.toThrow('deadline');
  });
});
