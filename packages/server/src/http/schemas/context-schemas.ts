import { z } from '@hono/zod-openapi';
import {
  ASSEMBLY_CONTRACT_COUNTS,
  ASSEMBLY_CONTRACT_VERSION,
  ASSEMBLY_ORDERINGS,
  EXACT_DUPLICATE_RULE_ID,
  FRAME_TEMPLATE_ID,
  NEAR_DUPLICATE_RULE_ID,
  NEAR_DUPLICATE_THRESHOLD_DEFAULT,
  OMISSION_REASONS,
  TOKENIZER_IDS,
} from '@powercontext/context-assembly';
import { artifactRefSchema, nullableArtifactRef } from './common-schemas.js';
import { checkScopeTargets, scopesReadSchema, scopeTargetFields } from './scope-targets.js';
import { searchRequestSchema } from './search-schemas.js';

// The contract on the wire: the fields of the context-assembly package's AssemblyContract in snake_case.
// Each rule here is the package's own (bounds and ids come from it), and each message is the one the
// runtime's check gives once its field names are made snake_case, so both layers answer alike.

const COUNTS = {
  token_budget: ASSEMBLY_CONTRACT_COUNTS.tokenBudget,
  max_chunks: ASSEMBLY_CONTRACT_COUNTS.maxChunks,
  per_source_cap: ASSEMBLY_CONTRACT_COUNTS.perSourceCap,
} as const;

const count = (field: keyof typeof COUNTS, meaning: string) => {
  const { min, max, default: fallback } = COUNTS[field];
  return z
    .int({ error: `${field} must be an integer` })
    .min(min, { error: `${field} must be at least ${min}` })
    .max(max, { error: `${field} must be at most ${max}` })
    .optional()
    .openapi({ description: `${meaning}: ${min}-${max}, default ${fallback}.` });
};

export const assemblyContractRequestSchema = z
  .strictObject({
    version: z
      .literal(ASSEMBLY_CONTRACT_VERSION, { error: `version must be ${ASSEMBLY_CONTRACT_VERSION}` })
      .optional()
      .openapi({ description: 'The contract version; the only one is the default.' }),
    token_budget: count(
      'token_budget',
      'Most tokens of the whole framed context, frame included (B), and never less than the empty frame',
    ),
    max_chunks: count('max_chunks', 'Most chunks in the context (M)'),
    per_source_cap: count('per_source_cap', 'Most chunks from one source (S)'),
    duplicates: z
      .strictObject({
        exact: z
          .literal(EXACT_DUPLICATE_RULE_ID, { error: `duplicates.exact must be ${EXACT_DUPLICATE_RULE_ID}` })
          .optional()
          .openapi({ description: 'Exact duplicates (same sha256 of the text) are always dropped.' }),
        near: z
          .strictObject({
            rule: z
              .literal(NEAR_DUPLICATE_RULE_ID, {
                error: `duplicates.near.rule must be ${NEAR_DUPLICATE_RULE_ID}`,
              })
              .optional(),
            threshold: z
              .number({ error: 'duplicates.near.threshold must be a number' })
              .gt(0, { error: 'duplicates.near.threshold must be above 0' })
              .max(1, { error: 'duplicates.near.threshold must be at most 1' })
              .optional()
              .openapi({
                description: `Similarity at or above which a chunk repeats a chosen one; default ${NEAR_DUPLICATE_THRESHOLD_DEFAULT}.`,
              }),
          })
          .nullable()
          .optional()
          .openapi({ description: 'Near-duplicate detection; null turns it off.' }),
      })
      .optional(),
    ordering: z
      .enum(ASSEMBLY_ORDERINGS, { error: `ordering must be one of ${ASSEMBLY_ORDERINGS.join(', ')}` })
      .optional()
      .openapi({
        description:
          'How the chosen chunks are written: evidence_order (default, best first) or generator_order (retrieval order).',
      }),
    framing: z
      .literal(FRAME_TEMPLATE_ID, { error: `framing must be ${FRAME_TEMPLATE_ID}` })
      .optional()
      .openapi({ description: 'The frame template; the only one is the default.' }),
    tokenizer: z
      .enum(TOKENIZER_IDS, { error: `tokenizer must be one of ${TOKENIZER_IDS.join(', ')}` })
      .optional()
      .openapi({ description: 'The encoding tokens are counted with; default o200k_base.' }),
  })
  .openapi('AssemblyContractRequest', {
    description: 'The assembly contract (RFC 0008). Every field is optional; defaults fill the rest.',
  });

const { query, limit, mode, filter } = searchRequestSchema.shape;

export const prepareContextRequestSchema = z
  .strictObject({
    ...scopeTargetFields,
    query,
    limit,
    mode,
    filter,
    contract: assemblyContractRequestSchema.optional(),
  })
  .superRefine(checkScopeTargets)
  .openapi('PrepareContextRequest', {
    description: 'A search (without explain) and the contract to pack its evidence under.',
  });

export const assemblyContractSchema = z
  .strictObject({
    version: z.string(),
    token_budget: z.int(),
    max_chunks: z.int(),
    per_source_cap: z.int(),
    duplicates: z.strictObject({
      exact: z.string(),
      near: z.strictObject({ rule: z.string(), threshold: z.number() }).nullable(),
    }),
    ordering: z.enum(ASSEMBLY_ORDERINGS),
    framing: z.string(),
    tokenizer: z.enum(TOKENIZER_IDS),
  })
  .openapi('AssemblyContract', { description: 'The complete contract the context was packed under.' });

const citationSchema = z.strictObject({
  memory_ref: artifactRefSchema,
  entry_id: z.uuid(),
  entry_version_id: z.uuid(),
});

const ref = z.int().min(1).openapi({
  description: 'The chunk’s handle in `context` (`<chunk ref="…">`): its rank in the retrieval order.',
});
const source = z.string().openapi({
  description: 'The source the per-source cap counts: the entry’s first source id, or `entry:<entry_id>`.',
});
const contentDigest = z.string().openapi({ description: '`sha256:` of the chunk’s UTF-8 text.' });
const score = z
  .number()
  .optional()
  .openapi({ description: 'Only with score evidence (`evidence.kind: scores`).' });

export const contextChunkSchema = z
  .strictObject({
    ref,
    evidence_rank: z.int().min(1).openapi({ description: 'Position in the evidence order, best first.' }),
    citation: citationSchema,
    source,
    content_digest: contentDigest,
    tokens: z.int().min(0).openapi({ description: 'Tokens of the chunk’s block in `context`.' }),
    score,
  })
  .openapi('ContextChunk', { description: 'A chunk in the context, with its exact citation.' });

export const omittedCandidateSchema = z
  .strictObject({
    ref,
    evidence_rank: z
      .int()
      .min(1)
      .optional()
      .openapi({ description: 'Position in the evidence order; absent for not_selected.' }),
    citation: citationSchema,
    source,
    content_digest: contentDigest,
    tokens: z.int().min(0).optional().openapi({
      description:
        'With token_budget only: how far the count of its block got, already more than was left of the budget (a lower bound). Other omissions are decided before counting and carry none.',
    }),
    score,
    reason: z.enum(OMISSION_REASONS),
    duplicate_of: z.uuid().optional().openapi({
      description: 'With duplicate_of: the entry_version_id of the chunk in `context` it repeats.',
    }),
    duplicate_match: z.enum(['exact', 'near']).optional(),
    similarity: z
      .number()
      .optional()
      .openapi({ description: 'With a near duplicate: the similarity that met the threshold.' }),
  })
  .openapi('OmittedCandidate', { description: 'A candidate left out of the context, and why.' });

export const prepareContextResponseSchema = z
  .strictObject({
    memory: nullableArtifactRef(
      'The revision the context was read from; null when the scope was never written, and with scope_ids (see scopes; each chunk cites its own).',
    ),
    scopes: scopesReadSchema.optional(),
    mode: z.enum(['fts', 'vector', 'hybrid']),
    context: z.string().openapi({
      description:
        'The framed context for a generator. Retrieved text is escaped inside a frame that marks it as untrusted data; this is the only place any text appears.',
    }),
    total_tokens: z.int().min(0).openapi({ description: 'Tokens of `context`, at most the token budget.' }),
    frame_tokens: z.int().min(0).openapi({ description: 'Tokens of the frame without any chunk.' }),
    contract: assemblyContractSchema,
    contract_digest: z.string().openapi({
      description: '`sha256:` of the JSON of the contract in the runtime’s form (camelCase fields).',
    }),
    evidence: z
      .strictObject({
        kind: z.enum(['selection', 'scores']),
        policy_id: z.string().openapi({
          description: 'The rerank policy, or the retrieval policy when no rerank ran or it degraded.',
        }),
        model_id: z.string().openapi({
          description:
            'The rerank model; `none` for the retrieval order, `undeclared` for a reranker without one.',
        }),
        query_digest: z.string(),
        candidate_set_digest: z.string(),
      })
      .openapi({
        description: 'The ranking the context was packed from, bound to the query and candidates.',
      }),
    selected: z.array(contextChunkSchema).openapi({ description: 'The chunks in the order of `context`.' }),
    omitted: z.array(omittedCandidateSchema).openapi({
      description:
        'Every other candidate: packing omissions in evidence order, then not_selected in retrieval order.',
    }),
    omission_counts: z
      .strictObject({
        duplicate_of: z.int().min(0),
        chunk_limit: z.int().min(0),
        source_cap: z.int().min(0),
        token_budget: z.int().min(0),
        not_selected: z.int().min(0),
      })
      .openapi({ description: 'How many candidates each reason left out.' }),
  })
  .openapi('PrepareContextResponse');
