import { createRuntime } from '@powercontext/runtime';
import { readLocomoFile, buildConversation } from '../dist/locomo-data.js';
import { questionMetrics } from '../dist/metrics.js';
const { data } = await readLocomoFile('/work/shared/locomo/locomo-dev.json');
const convs = data.map((raw) => buildConversation(raw, 'turn').conversation);
const variants = JSON.parse(process.argv[2]);
for (const v of variants) {
  const env = { POWERCONTEXT_SERVER_DATA_DIR: '/tmp/locomo-ctx-store', POWERCONTEXT_SERVER_RUNTIME_MEMORY_LEXICAL_CONTEXT_WEIGHTS: v.w, POWERCONTEXT_SERVER_RUNTIME_MEMORY_BM25_DELTA: String(v.delta ?? 0.5), POWERCONTEXT_SERVER_RUNTIME_MEMORY_BM25_K1: String(v.k1 ?? 0.8) };
  const runtime = await createRuntime({ env });
  let sum = 0, sum1 = 0, sum50 = 0, n = 0;
  for (const c of convs) {
    const scope = `locomo:${c.id}`;
    await runtime.memory.reindex(scope);
    const mem = runtime.memory.forScope(scope);
    const byText = new Map(c.units.map((u) => [u.text, u]));
    for (const q of c.questions) {
      const hits = (await mem.search({ query: q.question, mode: 'fts', limit: 50 })).hits;
      const cov = hits.map((h) => byText.get(h.text).turnIds);
      const m = questionMetrics(cov, { evidence: q.evidence, relevantUnits: 1 }, 50);
      sum += m.recall_at_10; sum1 += m.recall_at_1; sum50 += m.recall_at_50; n++;
    }
  }
  console.log(JSON.stringify(v), 'R@1', (sum1 / n * 100).toFixed(1), 'R@10', (sum / n * 100).toFixed(1), 'R@50', (sum50 / n * 100).toFixed(1));
  await runtime.close();
}
