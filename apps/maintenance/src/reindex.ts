import { createRuntime } from '@powercontext/runtime';
import { reindexAll } from './reindex-all.js';

const runtime = await createRuntime();
try {
  const projection = runtime.capabilities().lexicalProjectionId;
  const rebuilt = await reindexAll(runtime, (scopeId, count) => {
    if (count > 0) console.log(`${scopeId}: re-projected ${count} entries`);
  });
  const total = [...rebuilt.values()].reduce((sum, count) => sum + count, 0);
  console.log(`${total} entries re-projected for ${projection} in ${rebuilt.size} scopes`);
} finally {
  await runtime.close();
}
