import { createRequire } from 'node:module';
import type * as CliProgress from 'cli-progress';

const require = createRequire(import.meta.url);

/** A progress bar with rate and time left, drawn by cli-progress; it draws nothing where the stream is not a terminal. */
export interface ProgressBar {
  /** `done` of `total` so far; `note` (e.g. "1,200 entries") is shown after the bar. Stops itself at `total`. */
  update(done: number, note?: string): void;
  /** Ends the line (once); safe to call after the bar stopped itself. */
  stop(): void;
}

/**
 * A one-line bar on `stream` (stdout by default): the label, the bar, done/total, the rate per second
 * and the estimated time left. On anything but a terminal (a pipe, a file, CI logs) it writes nothing.
 */
export function createProgressBar(
  label: string,
  total: number,
  stream: NodeJS.WriteStream = process.stdout,
  options: { unit?: string } = {},
): ProgressBar {
  const unit = options.unit ?? '';
  const started = performance.now();
  // Loaded when a bar is made, so that commands which never draw one do not pay for it at start-up.
  const cliProgress = require('cli-progress') as typeof CliProgress;
  const bar = new cliProgress.SingleBar({
    stream,
    format: `${label} [{bar}] {value}/{total}${unit ? ` ${unit}` : ''} | {rate}/s | ETA {time_left}{note}`,
    barCompleteChar: '#',
    barIncompleteChar: '-',
    barsize: 30,
    hideCursor: false,
    noTTYOutput: false,
    etaBuffer: 50,
  });
  let running = false;
  let stopped = false;
  const payload = (done: number, note: string | undefined) => {
    const seconds = Math.max((performance.now() - started) / 1000, 1e-3);
    return {
      rate: Math.round(done / seconds),
      time_left: timeLeft(done, total, seconds),
      note: note ? ` | ${note}` : '',
    };
  };
  const progress: ProgressBar = {
    update(done, note) {
      if (stopped) return;
      if (!running) {
        bar.start(total, done, payload(done, note));
        running = true;
      } else {
        bar.update(done, payload(done, note));
      }
      if (done >= total) progress.stop();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (running) bar.stop();
    },
  };
  return progress;
}

/**
 * The time left at the rate so far, or `--` while nothing is done yet: the first frame has no rate to
 * go by (cli-progress's own estimate says 0s there).
 */
export function timeLeft(done: number, total: number, elapsedSeconds: number): string {
  if (done >= total) return '0s';
  if (done <= 0) return '--';
  const seconds = Math.ceil(((total - done) * elapsedSeconds) / done);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
