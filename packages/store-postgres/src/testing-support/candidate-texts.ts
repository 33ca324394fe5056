import type { ChannelCandidate, MemoryStore } from '@powercontext/memory-core';

/** The texts of a channel's candidates, in the channel's order, read as a search reads its hits. */
export async function candidateTexts(
  store: MemoryStore,
  scopeId: string,
  candidates: readonly ChannelCandidate[],
): Promise<string[]> {
  const versions = await store.entryVersions(
    scopeId,
    candidates.map((candidate) => candidate.entryVersionId),
  );
  return candidates.map((candidate) => versions.get(candidate.entryVersionId)?.text ?? '(missing)');
}
