import { performance } from 'node:perf_hooks';
import { createProgressBar } from '@powercontext/cli-support';
import { createPeerSystems, PEER_SYSTEMS, type PeerSystem } from '@powercontext/search-peers';
import { type PeerCaseSpec, SEARCH_LIMIT, WARMUP_QUERIES } from './case-spec.js';
import { yieldToEventLoop } from './interrupts.js';
import { latencyOf, peakRssMb, perSecond, round } from './measure.js';
import type { PeerResult } from './scale-report.js';
import { generateCorpus, generateQueries } from './synthetic-corpus.js';

/** The name and mode of a peer of PEER_SYSTEMS, for reports. */
export function peerIdentity(peer: number): { system: string; mode: string } {
  const identity = PEER_SYSTEMS[peer];
  if (!identity) throw new RangeError(`no peer system number ${peer}`);
  return { system: identity.system, mode: identity.mode };
}

/**
 * One peer system over the same corpus and queries as the stores: one index per scope (as the
 * product searches within a scope), built in process; then the queries, one at a time, each against
 * its scope's index with k = the search limit. No throughput runs: the peers search synchronously
 * on the caller's thread, so concurrent clients in one process only take turns.
 */
export async function runPeerCase(spec: PeerCaseSpec): Promise<PeerResult> {
  const identity = peerIdentity(spec.peer);
  const label = `${identity.system} ${identity.mode} ${spec.entries}`;
  const entries = generateCorpus({ seed: spec.seed, entries: spec.entries, scopes: spec.scopes });
  const queries = generateQueries(
    { seed: spec.seed, count: WARMUP_QUERIES + spec.queries, scopes: spec.scopes },
    entries,
  );
  const indexes: PeerSystem[] = [];
  const bar = createProgressBar(`${label} index`, entries.length);
  bar.update(0);
  let done = 0;
  const started = performance.now();
  for (let scope = 0; scope < spec.scopes; scope++) {
    const peer = createPeerSystems()[spec.peer]!;
    const documents = [];
    for (let index = scope; index < entries.length; index += spec.scopes) {
      documents.push({ unitId: String(index), text: entries[index]!.text });
    }
    await peer.index(documents);
    indexes.push(peer);
    done += documents.length;
    bar.update(done);
    await yieldToEventLoop();
  }
  const indexMs = performance.now() - started;

  const search = createProgressBar(`${label} search`, queries.length);
  search.update(0);
  const samples: number[] = [];
  let hits = 0;
  for (const [index, query] of queries.entries()) {
    const queryStarted = performance.now();
    const found = await indexes[query.scope]!.search(query.text, SEARCH_LIMIT);
    const milliseconds = performance.now() - queryStarted;
    if (index >= WARMUP_QUERIES) {
      samples.push(milliseconds);
      hits += found.length;
    }
    search.update(index + 1);
    await yieldToEventLoop();
  }
  const rss = peakRssMb();
  for (const peer of indexes) await peer.close?.();
  return {
    ...identity,
    measured: true,
    ingest: {
      entries: entries.length,
      seconds: round(indexMs / 1000, 3),
      entries_per_second: perSecond(entries.length, indexMs),
    },
    search: { ...latencyOf(samples), mean_hits: round(hits / samples.length, 3) },
    peak_rss_mb: rss,
  };
}
