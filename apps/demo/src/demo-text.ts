import type { Runtime, RuntimeCapabilities } from '@powercontext/runtime';

type ScopedMemory = ReturnType<Runtime['memory']['forScope']>;
type SearchResult = Awaited<ReturnType<ScopedMemory['search']>>;
type MemoryRef = NonNullable<Awaited<ReturnType<ScopedMemory['list']>>['memory']>;

// What the demo prints: in words first (what it does, what it did, what to try next); the ids and
// policies under --verbose, and everything in --json.

const shellQuote = (value: string) =>
  /^[\w./:-]+$/u.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;

export function openingText(scope: string, turns: number, dataDir: string | undefined): string {
  const where = dataDir === undefined ? 'PostgreSQL' : `the embedded store in ${dataDir}`;
  return `PowerContext Memory demo: remembering a sample conversation (${turns} turns between two neighbours planning a garden) in scope "${scope}" of ${where}, then searching it.`;
}

export function demoSummary(run: {
  scope: string;
  dataDir: string | undefined;
  capabilities: RuntimeCapabilities;
  turns: number;
  created: number;
  reembedded: number;
  head: MemoryRef | undefined;
  searches: { query: string; result: SearchResult }[];
}) {
  const { capabilities, head } = run;
  const present = run.turns - run.created;
  const stored =
    run.created === 0
      ? `All ${run.turns} turns were already stored by an earlier run: nothing was written twice.`
      : `Stored ${run.created} new entries${present > 0 ? ` (${present} were already there)` : ''}.`;
  const reembedded =
    run.reembedded > 0 ? ` Re-embedded ${run.reembedded} entries written under an earlier embedder.` : '';
  return {
    what_it_did: `${stored}${reembedded} Here are its answers to ${run.searches.length} questions, each with the entry it cites:`,
    details: [
      `store ${capabilities.store}${run.dataDir === undefined ? '' : ` (${run.dataDir})`}`,
      `embedder ${capabilities.embeddingProfile.id}`,
      `retrieval policy ${capabilities.retrievalPolicyId}`,
      `memory ${head?.artifactId ?? '-'} at revision ${head?.revision ?? 0}`,
    ],
    scope: run.scope,
    store: capabilities.store,
    ...(run.dataDir === undefined ? {} : { data_dir: run.dataDir }),
    embedding_profile: capabilities.embeddingProfile.id,
    retrieval_policy_id: capabilities.retrievalPolicyId,
    memory: head ? { artifact_id: head.artifactId, revision: head.revision } : null,
    entries: { created: run.created, already_present: present, reembedded: run.reembedded },
    searches: run.searches.map(({ query, result }) => ({
      query,
      mode: result.mode,
      hits: result.hits.map((hit) => ({
        score: hit.score,
        channel_ranks: hit.channelRanks,
        text: hit.text,
        citation: {
          artifact_id: hit.citation.artifactId,
          revision: hit.citation.revision,
          entry_id: hit.citation.entryId,
          entry_version_id: hit.citation.entryVersionId,
        },
      })),
    })),
  };
}

export function searchText(query: string, result: SearchResult): string {
  const lines = [`search [${result.mode}] "${query}"`];
  for (const [index, hit] of result.hits.entries()) {
    const ranks = Object.entries(hit.channelRanks)
      .map(([channel, rank]) => `${channel}#${rank}`)
      .join(' ');
    lines.push(`  ${index + 1}. score ${hit.score.toFixed(4)}  ${ranks.padEnd(16)} ${hit.text}`);
    const { artifactId, revision, entryId, entryVersionId } = hit.citation;
    lines.push(`     cite artifact ${artifactId} rev ${revision} entry ${entryId} version ${entryVersionId}`);
  }
  if (result.hits.length === 0) lines.push('  (no hits)');
  return `${lines.join('\n')}\n`;
}

export function nextStepsText(scope: string, dataDir: string | undefined): string {
  const store = dataDir === undefined ? '' : ` --data-dir ${shellQuote(dataDir)}`;
  return [
    'What to try next:',
    `  ask your own question:   pnpm exec powercontext memory search --scope ${shellQuote(scope)} --query 'who builds the beds?'${store}`,
    `  list what it stored:     pnpm exec powercontext memory list --scope ${shellQuote(scope)}${store}`,
    '  browse it in a browser:  pnpm server, then open http://127.0.0.1:7474/ui/',
    '  see the ids and policies of this run: pnpm demo --verbose (or --json)',
  ].join('\n');
}
