import { parseInput } from '@powercontext/memory-core';
import { z } from 'zod';
import { FRAME_TEMPLATE_ID } from './frame.js';
import { NEAR_DUPLICATE_RULE_ID } from './near-duplicate.js';
import { TOKENIZER_IDS } from './tokenizer.js';

/** Version of the contract's shape and of the packing walk that reads it. */
export const ASSEMBLY_CONTRACT_VERSION = 'powercontext.assembly.contract.v1';

/** Exact duplicates: equal sha256 of the chunk's UTF-8 text. */
export const EXACT_DUPLICATE_RULE_ID = 'powercontext.assembly.exact-duplicate.sha256-utf8.v1';

/**
 * Order of the selected chunks in the framed context. Packing always walks the evidence order (best
 * first); this only decides how the chosen chunks are written: `evidence_order` best first,
 * `generator_order` by coarse (retrieval) rank.
 */
export const ASSEMBLY_ORDERINGS = ['evidence_order', 'generator_order'] as const;
export type AssemblyOrdering = (typeof ASSEMBLY_ORDERINGS)[number];

/** The counts of the contract: inclusive bounds and defaults (transports document them from here). */
export const ASSEMBLY_CONTRACT_COUNTS = {
  tokenBudget: { min: 1, max: 200_000, default: 2_000 },
  maxChunks: { min: 1, max: 100, default: 10 },
  perSourceCap: { min: 1, max: 100, default: 10 },
} as const;

/** Default similarity threshold of the near-duplicate rule (0 < threshold <= 1). */
export const NEAR_DUPLICATE_THRESHOLD_DEFAULT = 0.8;

const count = (field: keyof typeof ASSEMBLY_CONTRACT_COUNTS) => {
  const { min, max, default: fallback } = ASSEMBLY_CONTRACT_COUNTS[field];
  return z
    .int({ error: `${field} must be an integer` })
    .min(min, { error: `${field} must be at least ${min}` })
    .max(max, { error: `${field} must be at most ${max}` })
    .default(fallback);
};

export const assemblyContractSchema = z.strictObject({
  version: z
    .literal(ASSEMBLY_CONTRACT_VERSION, { error: `version must be ${ASSEMBLY_CONTRACT_VERSION}` })
    .default(ASSEMBLY_CONTRACT_VERSION),
  /** B: most tokens of the whole framed context, frame included. */
  tokenBudget: count('tokenBudget'),
  /** M: most chunks. */
  maxChunks: count('maxChunks'),
  /** S: most chunks from one source. */
  perSourceCap: count('perSourceCap'),
  duplicates: z
    .strictObject({
      exact: z
        .literal(EXACT_DUPLICATE_RULE_ID, { error: `duplicates.exact must be ${EXACT_DUPLICATE_RULE_ID}` })
        .default(EXACT_DUPLICATE_RULE_ID),
      /** null turns near-duplicate detection off; exact duplicates are always dropped. */
      near: z
        .strictObject({
          rule: z
            .literal(NEAR_DUPLICATE_RULE_ID, {
              error: `duplicates.near.rule must be ${NEAR_DUPLICATE_RULE_ID}`,
            })
            .default(NEAR_DUPLICATE_RULE_ID),
          threshold: z
            .number({ error: 'duplicates.near.threshold must be a number' })
            .gt(0, { error: 'duplicates.near.threshold must be above 0' })
            .max(1, { error: 'duplicates.near.threshold must be at most 1' })
            .default(NEAR_DUPLICATE_THRESHOLD_DEFAULT),
        })
        .nullable()
        .prefault({}),
    })
    .prefault({}),
  ordering: z
    .enum(ASSEMBLY_ORDERINGS, { error: `ordering must be one of ${ASSEMBLY_ORDERINGS.join(', ')}` })
    .default('evidence_order'),
  framing: z
    .literal(FRAME_TEMPLATE_ID, { error: `framing must be ${FRAME_TEMPLATE_ID}` })
    .default(FRAME_TEMPLATE_ID),
  tokenizer: z
    .enum(TOKENIZER_IDS, { error: `tokenizer must be one of ${TOKENIZER_IDS.join(', ')}` })
    .default('o200k_base'),
});

/** What a caller writes: every field has a default. */
export type AssemblyContractInput = z.input<typeof assemblyContractSchema>;
/** The complete contract, as validated and echoed in every report. */
export type AssemblyContract = z.output<typeof assemblyContractSchema>;

/** Validates a contract and fills its defaults; a ValidationError names each bad field (`contract.*`). */
export function parseAssemblyContract(input: AssemblyContractInput = {}): AssemblyContract {
  return parseInput(assemblyContractSchema, input, 'contract');
}
