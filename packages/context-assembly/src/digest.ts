import { createHash } from 'node:crypto';

/** `sha256:<hex>` of the UTF-8 bytes of `text`: the content digest of a chunk and the query digest. */
export function textDigest(text: string): string {
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}

/** One candidate as rerank evidence binds it: its entry and the digest of the exact text that was scored. */
export interface CandidateBinding {
  entryId: string;
  contentDigest: string;
}

/**
 * Digest of an ordered candidate set: the JSON array of `[entryId, contentDigest]` pairs in generator
 * order. Reordering, replacing or dropping one candidate changes it.
 */
export function candidateSetDigest(bindings: readonly CandidateBinding[]): string {
  return textDigest(JSON.stringify(bindings.map((binding) => [binding.entryId, binding.contentDigest])));
}
