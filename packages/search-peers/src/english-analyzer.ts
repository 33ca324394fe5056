import { stemmer } from 'stemmer';
import { ENGLISH_STOP_WORDS } from './english-stop-words.js';

/** Runs of letters and digits, optionally joined by apostrophes ("don't", "caroline's"). */
const WORD = /[\p{L}\p{N}]+(?:['\u2019][\p{L}\p{N}]+)*/gu;

/** Splits text into raw word tokens (case and apostrophes kept; see {@link normalizeEnglishTerm}). */
export function tokenizeEnglish(text: string): string[] {
  return text.match(WORD) ?? [];
}

/**
 * Turns one raw token into an index term: lower-cased, stop words dropped (null), possessive "'s"
 * removed, remaining apostrophes removed, then reduced with the Porter stemmer
 * ("painted", "painting" -> "paint").
 */
export function normalizeEnglishTerm(token: string): string | null {
  const lower = token.toLowerCase().replace(/\u2019/g, "'");
  if (ENGLISH_STOP_WORDS.has(lower)) return null;
  const word = lower.replace(/'s$/, '').replace(/'/g, '');
  if (word.length === 0 || ENGLISH_STOP_WORDS.has(word)) return null;
  return stemmer(word);
}
