/**
 * A deterministic corpus of short texts over a small vocabulary, so that terms and directions repeat
 * and scores tie: `count` texts of `minWords` to `minWords + spread - 1` words each, drawn by a linear
 * congruential generator from `seed`.
 */
export function wordCorpus(
  vocabulary: readonly string[],
  { count, seed, minWords, spread }: { count: number; seed: number; minWords: number; spread: number },
): string[] {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state;
  };
  return Array.from({ length: count }, () => {
    const words = minWords + (next() % spread);
    return Array.from({ length: words }, () => vocabulary[next() % vocabulary.length]).join(' ');
  });
}
