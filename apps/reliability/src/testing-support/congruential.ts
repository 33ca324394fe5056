/**
 * A deterministic stream of integers in [0, 2^31) from `seed`: the classic linear congruential step
 * (multiplier 1103515245, increment 12345). The scenarios draw their texts from it, so a run writes the
 * same corpus every time.
 */
export function congruential(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state;
  };
}
