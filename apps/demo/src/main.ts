import { parseArgs } from 'node:util';
import { createProgressBar } from '@powercontext/cli-support';
import { createRuntime } from '@powercontext/runtime';
import { demoSummary, nextStepsText, openingText, searchText } from './demo-text.js';
import { SAMPLE_CONVERSATION, SAMPLE_QUERIES } from './sample-conversation.js';

// `pnpm demo [--verbose] [--json]`: remembers a sample conversation in the embedded store (or the
// PostgreSQL of POWERCONTEXT_SERVER_DATABASE_URL), searches it, and says what to try next. The
// embedded store compiles PGlite's WebAssembly with V8's baseline compiler by itself (rfcs/0001).
const USAGE = `Usage: pnpm demo [--verbose] [--json]

  --verbose   also print the store, embedder, retrieval policy and memory artifact
  --json      print one JSON object instead of text (everything --verbose shows, and every hit)`;

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    verbose: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
  strict: true,
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const SCOPE = 'demo:alder-street-garden';
const BATCH = 4;

const runtime = await createRuntime();
try {
  const capabilities = runtime.capabilities();
  const dataDir = runtime.config.store.kind === 'pglite' ? runtime.config.store.dataDir : undefined;
  const memory = runtime.memory.forScope(SCOPE);
  if (!values.json) console.log(openingText(SCOPE, SAMPLE_CONVERSATION.length, dataDir));

  const bar = createProgressBar(
    'remembering',
    SAMPLE_CONVERSATION.length,
    values.json ? process.stderr : undefined,
  );
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
  const head = (await memory.list({ limit: 1 })).memory;
  const searches = [];
  for (const { query, mode } of SAMPLE_QUERIES)
    searches.push({ query, result: await memory.search({ query, mode, limit: 3 }) });

  const summary = demoSummary({
    scope: SCOPE,
    dataDir,
    capabilities,
    turns: SAMPLE_CONVERSATION.length,
    created,
    reembedded,
    head,
    searches,
  });
  if (values.json) {
    console.log(JSON.stringify(summary, null, 2));
  } else {
    console.log(summary.what_it_did);
    if (values.verbose) console.log(summary.details.map((line) => `  ${line}`).join('\n'));
    console.log('');
    for (const search of searches) console.log(searchText(search.query, search.result));
    console.log(nextStepsText(SCOPE, dataDir));
  }
} finally {
  await runtime.close();
}
