import { round } from './measure.js';

/** Mean words, mean characters and the longest text of a corpus: how realistic its lengths are. */
export function corpusStats(texts: readonly string[]): {
  mean_words: number;
  mean_chars: number;
  max_chars: number;
} {
  if (texts.length === 0) return { mean_words: 0, mean_chars: 0, max_chars: 0 };
  let words = 0;
  let chars = 0;
  let longest = 0;
  for (const text of texts) {
    words += text.split(/\s+/).filter((word) => word !== '').length;
    chars += text.length;
    longest = Math.max(longest, text.length);
  }
  return {
    mean_words: round(words / texts.length, 2),
    mean_chars: round(chars / texts.length, 1),
    max_chars: longest,
  };
}
