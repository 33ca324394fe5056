/**
 * The one query normalization used by every channel, the reranker and the trace:
 * Unicode NFKC, trimmed, runs of white space collapsed to one space.
 */
export function normalizeQuery(query: string): string {
  return query.normalize('NFKC').replace(/\s+/gu, ' ').trim();
}

/**
 * Most distinct words of a query the lexical channel reads. A question has a few dozen at most; the
 * cap bounds the postings one search can touch (a query of 1,500 distinct words once read every
 * posting of a scope), and with it the time a statement holds the database.
 */
export const LEXICAL_QUERY_MAX_TERMS = 64;

const WORD = /[\p{L}\p{N}]+/gu;

/**
 * The normalized query cut before its (LEXICAL_QUERY_MAX_TERMS + 1)-th distinct word (letters and
 * digits, compared in lower case); a query within the cap comes back unchanged.
 */
export function lexicalQueryOf(query: string): string {
  const seen = new Set<string>();
  for (const match of query.matchAll(WORD)) {
    const word = match[0].toLowerCase();
    if (seen.has(word)) continue;
    if (seen.size === LEXICAL_QUERY_MAX_TERMS) return query.slice(0, match.index).trimEnd();
    seen.add(word);
  }
  return query;
}
