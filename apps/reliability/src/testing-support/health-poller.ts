import { Worker } from 'node:worker_threads';

/**
 * Asks `GET <url>/healthz` on a fresh connection every `intervalMs`, from a worker thread of its own,
 * and records how long each whole answer took. A scenario that also reads large answers (a context
 * preparation is about a megabyte of JSON) would otherwise time the health check on the same event
 * loop that parses them, and charge its own pauses to the server.
 */
export interface HealthPoller {
  /** Stops asking and resolves with every latency in milliseconds, in order. Rejects on a non-200. */
  stop(): Promise<number[]>;
}

const POLLER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { request } = require('node:http');
let running = true;
parentPort.on('message', () => { running = false; });
function health() {
  const began = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(workerData.url + '/healthz', { agent: false }, (res) => {
      res.resume();
      res.on('end', () =>
        res.statusCode === 200 ? resolve(performance.now() - began) : reject(new Error('healthz ' + res.statusCode)),
      );
    });
    req.on('error', reject);
    req.end();
  });
}
(async () => {
  const latencies = [];
  try {
    while (running) {
      latencies.push(await health());
      await new Promise((resolve) => setTimeout(resolve, workerData.intervalMs));
    }
    parentPort.postMessage({ latencies });
  } catch (error) {
    parentPort.postMessage({ error: String(error) });
  }
})();
`;

export function pollHealth(url: string, intervalMs = 20): HealthPoller {
  const worker = new Worker(POLLER_SOURCE, { eval: true, workerData: { url, intervalMs } });
  const result = new Promise<number[]>((resolve, reject) => {
    worker.once('message', (message: { latencies?: number[]; error?: string }) => {
      void worker.terminate();
      if (message.error !== undefined) reject(new Error(message.error));
      else resolve(message.latencies ?? []);
    });
    worker.once('error', reject);
  });
  return {
    stop() {
      worker.postMessage('stop');
      return result;
    },
  };
}
