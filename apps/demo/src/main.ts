import { setFlagsFromString } from 'node:v8';
import { createProgressBar } from '@powercontext/cli-support';
import { createRuntime } from '@powercontext/runtime';
import { SAMPLE_CONVERSATION, SAMPLE_QUERIES } from './sample-conversation.js';

// A short run: compile PGlite's WebAssembly with V8's baseline compiler only, without the background
// optimising compiles that would compete with the demo for the CPU (issue 14 measured 25% less CPU).
setFlagsFromString('--liftoff-only');

const SCOPE = 'demo:alder-street-garden';
const BATCH = 4;

const runtime = await createRuntime();
try {
  const { store, embeddingProfile, retrievalPolicyId } = runtime.capabilities();
  const where = runtime.config.store.kind === 'pglite' ? runtime.config.store.dataDir : 'PostgreSQL';
  console.log(
    `PowerContext Memory demo: store ${store} (${where}), embedder ${embeddingProfile.id}, policy ${retrievalPolicyId}`,
  );

  const memory = runtime.memory.forScope(SCOPE);
  const bar = createProgressBar('remembering', SAMPLE_CONVERSATION.length);
  let created = 0;
  bar.update(0);
  for (let start = 0; start < SAMPLE_CONVERSATION.length; start += BATCH) {
    const batch = SAMPLE_CONVERSATION.slice(start, start + BATCH);
    const result = await memory.remember({
      entries: batch.map((turn) => ({
        text: `${turn.speaker}: ${turn.text}`,
        kind: 'turn',
        sources: [{ sourceId: 'alder-street-chat', locator: `S${turn.session}:T${turn.turn}` }],
        metadata: { session_date: turn.date, speaker: turn.speaker },
      })),
    });
    created += result.entries.filter((entry) => entry.status === 'created').length;
    bar.update(Math.min(start + BATCH, SAMPLE_CONVERSATION.length));
  }
  // Entries stored under an earlier embedding profile get vectors of the current one.
  const reembedded = await runtime.memory.reembed(SCOPE);
  if (reembedded > 0) console.log(`re-embedded ${reembedded} entries for ${embeddingProfile.id}`);
  const head = (await memory.list({ limit: 1 })).memory;
  console.log(
    `${created} new entries, ${SAMPLE_CONVERSATION.length - created} already present; memory ${head?.artifactId} at revision ${head?.revision}\n`,
  );

  for (const { query, mode } of SAMPLE_QUERIES) {
    const result = await memory.search({ query, mode, limit: 3 });
    console.log(`search [${result.mode}] "${query}"`);
    for (const [index, hit] of result.hits.entries()) {
      const ranks = Object.entries(hit.channelRanks)
        .map(([channel, rank]) => `${channel}#${rank}`)
        .join(' ');
      console.log(`  ${index + 1}. score ${hit.score.toFixed(4)}  ${ranks.padEnd(16)} ${hit.text}`);
      const { artifactId, revision, entryId, entryVersionId } = hit.citation;
      console.log(
        `     cite artifact ${artifactId} rev ${revision} entry ${entryId} version ${entryVersionId}`,
      );
    }
    if (result.hits.length === 0) console.log('  (no hits)');
    console.log('');
  }
} finally {
  await runtime.close();
}
