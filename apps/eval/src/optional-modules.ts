import { access } from 'node:fs/promises';
import type { PeerFactory } from './peer-system.js';

/** One curve of the recall plot. */
export interface RecallCurve {
  label: string;
  points: { k: number; recall: number }[];
}

export type RenderRecallSvg = (runs: RecallCurve[]) => Promise<string>;

/**
 * Imports `./<folder>/index` of this app, which may be absent from a build (the peers and the plot
 * are written separately): index.js in the compiled app, index.ts when the sources run under vitest.
 * The specifier is computed, so TypeScript does not require the file to exist.
 */
async function importOptional(folder: string): Promise<Record<string, unknown> | string> {
  const candidates = ['index.js', 'index.ts'].map((file) => new URL(`./${folder}/${file}`, import.meta.url));
  let found: URL | undefined;
  for (const candidate of candidates) {
    if (
      await access(candidate).then(
        () => true,
        () => false,
      )
    ) {
      found = candidate;
      break;
    }
  }
  if (!found) return `./${folder}/index.js is not part of this build`;
  try {
    return (await import(found.href)) as Record<string, unknown>;
  } catch (error) {
    return `./${folder}/index.js failed to load: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** `createPeers` of ./peers/index.js, or the reason it is unavailable. */
export async function loadPeerFactory(): Promise<PeerFactory | string> {
  const module = await importOptional('peers');
  if (typeof module === 'string') return module;
  return typeof module.createPeers === 'function'
    ? (module.createPeers as PeerFactory)
    : './peers/index.js does not export createPeers';
}

/** `renderRecallSvg` of ./plot/index.js, or the reason it is unavailable. */
export async function loadRecallPlot(): Promise<RenderRecallSvg | string> {
  const module = await importOptional('plot');
  if (typeof module === 'string') return module;
  return typeof module.renderRecallSvg === 'function'
    ? (module.renderRecallSvg as RenderRecallSvg)
    : './plot/index.js does not export renderRecallSvg';
}
