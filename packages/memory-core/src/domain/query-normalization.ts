/**
 * The one query normalization used by every channel, the reranker and the trace:
 * Unicode NFKC, trimmed, runs of white space collapsed to one space.
 */
export function normalizeQuery(query: string): string {
  return query.normalize('NFKC').replace(/\s+/gu, ' ').trim();
}
