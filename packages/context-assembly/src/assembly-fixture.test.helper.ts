import type { AssemblyCandidate } from './assembly-candidate.js';

export const MEMORY = { artifactId: 'a0000000-0000-4000-8000-000000000001', scopeId: 'garden', revision: 3 };

/** Candidates in generator order: entry ids e1, e2, ..., version ids v1, v2, ..., source `src-<n>` unless given. */
export function candidatesOf(
  items: readonly (string | { text: string; source: string })[],
): AssemblyCandidate[] {
  return items.map((item, index) => {
    const { text, source } = typeof item === 'string' ? { text: item, source: `src-${index + 1}` } : item;
    return {
      memoryRef: MEMORY,
      entryId: `e${index + 1}`,
      entryVersionId: `v${index + 1}`,
      source,
      text,
    };
  });
}
