import { createRuntime } from '@powercontext/runtime';
import { readLocomoFile, buildConversation } from '../dist/locomo-data.js';
import { ingestConversation } from '../dist/ingest.js';
import { questionMetrics, countRelevantUnits } from '../dist/metrics.js';
import { existsSync } from 'node:fs';

const dir = process.argv[2] ?? '/tmp/locomo-ctx-store';
const fresh = !existsSync(dir);
const runtime = await createRuntime({ env: { ...process.env, POWERCONTEXT_SERVER_DATA_DIR: dir } });
const { data } = await readLocomoFile('/work/shared/locomo/locomo-dev.json');
const convs = data.map((raw) => buildConversation(raw, 'turn').conversation);
const ingested = [];
for (const c of convs) {
  if (fresh) ingested.push(await ingestConversation(runtime, c, 'turn', () => {}, () => {}));
  else {
    // rebuild unit map from stored entries (text -> unit)
    const byText = new Map(c.units.map((u) => [u.text, u]));
    const unitByEntryId = new Map();
    let cursor;
    do {
      const page = await runtime.memory.forScope(`locomo:${c.id}`).list({ limit: 500, ...(cursor ? { cursor } : {}) });
      for (const e of page.entries) unitByEntryId.set(e.entryId, byText.get(e.text));
      cursor = page.nextCursor;
    } while (cursor);
    const coverage = [...unitByEntryId.values()].map((u) => u.turnIds);
    ingested.push({ conversation: c, scopeId: `locomo:${c.id}`, unitByEntryId, relevantUnits: c.questions.map((q) => countRelevantUnits(coverage, q.evidence)) });
  }
}
console.error('ingested', fresh);
const variants = [];
for (const k of [60, 20, 5]) for (const wv of [1, 0.7, 0.5, 0.3, 0.0]) variants.push({ k, wv });
const sums = variants.map(() => 0);
let n = 0;
const plainSum = { fts: 0, vector: 0 };
for (const item of ingested) {
  for (const [qi, q] of item.conversation.questions.entries()) {
    const mem = runtime.memory.forScope(item.scopeId);
    const f = (await mem.search({ query: q.question, mode: 'fts', limit: 40 })).hits.map((h) => h.citation.entryId);
    const v = (await mem.search({ query: q.question, mode: 'vector', limit: 40 })).hits.map((h) => h.citation.entryId);
    const target = { evidence: q.evidence, relevantUnits: item.relevantUnits[qi] };
    const cov = (ids) => ids.map((id) => item.unitByEntryId.get(id).turnIds);
    plainSum.fts += questionMetrics(cov(f), target, 10).recall_at_10;
    plainSum.vector += questionMetrics(cov(v), target, 10).recall_at_10;
    variants.forEach(({ k, wv }, i) => {
      const s = new Map();
      f.forEach((id, r) => s.set(id, (s.get(id) ?? 0) + 1 / (k + r + 1)));
      v.forEach((id, r) => s.set(id, (s.get(id) ?? 0) + wv / (k + r + 1)));
      const fused = [...s.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map((e) => e[0]);
      sums[i] += questionMetrics(cov(fused), target, 10).recall_at_10;
    });
    n++;
  }
}
console.log('fts', (plainSum.fts / n * 100).toFixed(1), 'vector', (plainSum.vector / n * 100).toFixed(1));
variants.forEach((v, i) => console.log(`k=${v.k} wv=${v.wv} R@10=${(sums[i] / n * 100).toFixed(1)}`));
await runtime.close();
