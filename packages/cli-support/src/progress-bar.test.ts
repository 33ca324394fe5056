import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createProgressBar, timeLeft } from './progress-bar.js';

/** A stream that says whether it is a terminal and keeps what was written to it. */
function fakeStream(isTTY: boolean) {
  const stream = new PassThrough() as PassThrough & { isTTY: boolean; columns: number };
  stream.isTTY = isTTY;
  stream.columns = 200;
  const chunks: string[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  return { stream: stream as unknown as NodeJS.WriteStream, written: () => chunks.join('') };
}

describe('createProgressBar', () => {
  it('draws the label, done/total, a rate and an ETA on a terminal, and ends the line at the total', async () => {
    const { stream, written } = fakeStream(true);
    const bar = createProgressBar('remember', 4, stream, { unit: 'units' });
    bar.update(1, '10 entries');
    bar.update(4);
    await new Promise((resolve) => setImmediate(resolve));
    const text = written();
    expect(text).toContain('remember [');
    expect(text).toContain('4/4 units');
    expect(text).toMatch(/\d+\/s \| ETA /u);
    expect(text).toContain('| 10 entries');
    expect(text.endsWith('\n')).toBe(true);
    bar.stop();
  });

  it('says no time left on its first frame, before anything is done (not "ETA 0s")', async () => {
    const { stream, written } = fakeStream(true);
    const bar = createProgressBar('import', 2_000, stream, { unit: 'entries' });
    bar.update(0);
    await new Promise((resolve) => setImmediate(resolve));
    const first = written();
    expect(first).toContain('0/2000 entries');
    expect(first).toContain('| ETA --');
    expect(first).not.toContain('ETA 0s');
    bar.stop();
  });

  it('estimates the time left from the rate so far', () => {
    expect(timeLeft(0, 100, 5)).toBe('--');
    expect(timeLeft(25, 100, 5)).toBe('15s');
    expect(timeLeft(10, 100, 10)).toBe('1m30s');
    expect(timeLeft(1, 100, 60)).toBe('1h39m');
    expect(timeLeft(100, 100, 7)).toBe('0s');
  });

  it('writes nothing where the stream is not a terminal', async () => {
    const { stream, written } = fakeStream(false);
    const bar = createProgressBar('remember', 2, stream);
    bar.update(1);
    bar.update(2);
    bar.stop();
    await new Promise((resolve) => setImmediate(resolve));
    expect(written()).toBe('');
  });
});
