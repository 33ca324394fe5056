import { createRuntime } from '@powercontext/runtime';
import { createLocalEmbedder } from '@powercontext/embedder-local';
import { readLocomoFile, buildConversation } from '../dist/locomo-data.js';
import { questionMetrics } from '../dist/metrics.js';
import { writeFileSync } from 'node:fs';

const runtime = await createRuntime({ env: { POWERCONTEXT_SERVER_DATA_DIR: '/tmp/locomo-ctx-store' } });
const embedder = createLocalEmbedder();
const { data } = await readLocomoFile('/work/shared/locomo/locomo-dev.json');
const convs = data.map((raw) => buildConversation(raw, 'turn').conversation);
const out = [];
for (const c of convs) {
  const units = c.units;
  const vecs = await embedder.embed(units.map((u) => u.text));
  const mem = runtime.memory.forScope(`locomo:${c.id}`);
  const idByText = new Map();
  let cursor;
  do {
    const page = await mem.list({ limit: 200, ...(cursor ? { cursor } : {}) });
    for (const e of page.entries) idByText.set(e.text, e.entryId);
    cursor = page.nextCursor;
  } while (cursor);
  const qs = [];
  const qvecs = await embedder.embed(c.questions.map((q) => q.question));
  for (const [qi, q] of c.questions.entries()) {
    const f = (await mem.search({ query: q.question, mode: 'fts', limit: 50 })).hits.map((h) => units.findIndex((u) => u.text === h.text));
    const cos = vecs.map((v) => v.reduce((s, x, i) => s + x * qvecs[qi][i], 0));
    qs.push({ evidence: q.evidence, category: q.category, f, cos });
  }
  out.push({ id: c.id, units: units.map((u) => ({ turnIds: u.turnIds, pos: u.position })), vecs: vecs.map((v) => Array.from(v, (x) => Math.round(x * 1e4) / 1e4)), qvecs: qvecs.map((v) => Array.from(v, (x) => Math.round(x * 1e4) / 1e4)), qs });
}
writeFileSync('/tmp/channels.json', JSON.stringify(out));
await runtime.close();
