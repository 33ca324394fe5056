import { ENGLISH_STOP_WORDS } from './stop-words.js';

// A word is a run of letters and digits; combining marks stay attached to the letter they modify.
const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;

/**
 * The words of a text as the local embedder sees them: NFKC-folded, lower-cased Unicode word runs,
 * in order, without stop words. Apostrophes, hyphens and other punctuation separate words.
 */
export function wordTokens(text: string): string[] {
  const folded = text.normalize('NFKC').toLowerCase();
  const words = folded.match(WORD) ?? [];
  return words.filter((word) => !ENGLISH_STOP_WORDS.has(word));
}
