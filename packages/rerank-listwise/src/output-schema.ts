import { z } from 'zod';

/**
 * What the model must answer: an object with one key, `ranks`, a list of integers. Strings, floats,
 * nested lists and extra keys do not parse; the structured generator reports that as
 * `inference_invalid_output`. Whether each integer is a usable rank is decided later by `selectRanks`.
 */
export const listwiseOutputSchema = z.strictObject({ ranks: z.array(z.int()) });

export type ListwiseOutput = z.infer<typeof listwiseOutputSchema>;
