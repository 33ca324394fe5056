import { describe, expect, it } from 'vitest';
import { corpusStats } from './corpus-stats.js';

describe('corpusStats', () => {
  it('reports mean words, mean characters and the longest text', () => {
    expect(corpusStats(['Ann: hi there.', 'Bob:  one two   three four!'])).toEqual({
      mean_words: 4,
      mean_chars: 20.5,
      max_chars: 27,
    });
    expect(corpusStats([])).toEqual({ mean_words: 0, mean_chars: 0, max_chars: 0 });
  });
});
