import { createRuntime } from '@powercontext/runtime';
import { reembedAll } from './reembed-all.js';

const runtime = await createRuntime();
try {
  const profile = runtime.capabilities().embeddingProfile.id;
  const filled = await reembedAll(runtime, (scopeId, count) => {
    if (count > 0) console.log(`${scopeId}: re-embedded ${count} entries`);
  });
  const total = [...filled.values()].reduce((sum, count) => sum + count, 0);
  console.log(`${total} entries re-embedded for ${profile} in ${filled.size} scopes`);
} finally {
  await runtime.close();
}
