import { z } from '@hono/zod-openapi';
import { QUERY_MAX_CHARS, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX } from '@powercontext/memory-core';
import { WIRE_CHANNELS, type WireChannel } from '../wire-channels.js';
import { artifactRefSchema, nullableArtifactRef, sourceRefSchema } from './common-schemas.js';
import { checkScopeTargets, scopesReadSchema, scopeTargetFields } from './scope-targets.js';
import { entryFilterWireSchema } from './steering-schemas.js';

const modeRequest = z.enum(['auto', 'fts', 'vector', 'hybrid'], {
  error: 'mode must be one of auto, fts, vector, hybrid',
});
const mode = z.enum(['fts', 'vector', 'hybrid']);
const channel = z.enum(WIRE_CHANNELS);

export const searchRequestSchema = z
  .strictObject({
    scope_id: scopeTargetFields.scope_id,
    scope_ids: scopeTargetFields.scope_ids,
    query: z
      .string({ error: 'query must be a string' })
      .min(1, { error: 'query must be at least 1 character' })
      .max(QUERY_MAX_CHARS, { error: `query must be at most ${QUERY_MAX_CHARS} characters` }),
    limit: z
      .int({ error: 'limit must be an integer' })
      .min(1, { error: 'limit must be at least 1' })
      .max(SEARCH_LIMIT_MAX, { error: `limit must be at most ${SEARCH_LIMIT_MAX}` })
      .optional()
      .openapi({
        description: `Maximum number of final hits, 1-${SEARCH_LIMIT_MAX}; default ${SEARCH_LIMIT_DEFAULT}.`,
      }),
    mode: modeRequest.optional().openapi({
      description:
        'auto (default): hybrid when the scope’s vector index is complete, else fts. fts, vector and hybrid are explicit.',
    }),
    explain: z.literal('redacted', { error: 'explain must be "redacted"' }).optional().openapi({
      description:
        'Project extension: add a redacted `explain` object to the response. Needs the explain permission (403 otherwise). It never holds text, ids or scores of candidates that were not returned.',
    }),
    min_revision: scopeTargetFields.min_revision,
    min_revisions: scopeTargetFields.min_revisions,
    filter: entryFilterWireSchema.optional(),
  })
  .superRefine(checkScopeTargets)
  .openapi('SearchRequest');

export const searchHitSchema = z
  .strictObject({
    scope_id: z.string().openapi({ description: 'The scope the hit was read from (also in its citation).' }),
    citation: z.strictObject({
      memory_ref: artifactRefSchema,
      entry_id: z.uuid(),
      entry_version_id: z.uuid(),
    }),
    text: z.string(),
    score: z.number().openapi({
      description:
        'Fused Reciprocal Rank Fusion score; with scope_ids, the score of the fusion across scopes, 1 / (60 + the hit’s rank in its scope).',
    }),
    matched_by: z.array(channel).openapi({
      description:
        'The channels that found the hit: fts (full text) and vector, and, when the server runs them (POWERCONTEXT_SERVER_RUNTIME_MEMORY_SEARCH_CHANNELS), entity (an entity the query names) and graph (an entry sharing a rare entity with those).',
    }),
    kind: z.string(),
    tags: z.array(z.string()),
    pinned: z.boolean(),
    occurred_at: z.string().nullable().openapi({ description: 'The time the entry is about, or null.' }),
    metadata: z.record(z.string(), z.unknown()),
    sources: z.array(sourceRefSchema),
    revision: z.int().min(1).openapi({ description: 'The revision whose write created the cited version.' }),
    written_at: z.string().openapi({ description: 'When the cited version was written (ISO 8601).' }),
  })
  .openapi('SearchHit');

/** The v1 search response as RFC 0080 keeps it: final hits only, no trace. */
export const searchResponseBaseSchema = z.strictObject({
  memory: nullableArtifactRef(
    'The revision every hit cites; null when the scope was never written, and with scope_ids (see scopes).',
  ),
  scopes: scopesReadSchema.optional(),
  mode,
  hits: z.array(searchHitSchema),
});

/** The lexical admission fallback (RFC 0002), as explain and the MCP search result report it. */
export const lexicalFallbackSchema = z.strictObject({
  reason: z.literal('no_candidate_met_term_threshold'),
  query_term_count: z.int().min(0).openapi({ description: 'Distinct query terms after analysis.' }),
  admitted: z.int().min(1).openapi({ description: 'Coarse hits admitted by the fallback.' }),
});

const channelNumbers = z.strictObject(
  Object.fromEntries(WIRE_CHANNELS.map((name) => [name, z.number().optional()])) as Record<
    WireChannel,
    z.ZodOptional<z.ZodNumber>
  >,
);

export const searchExplainSchema = z
  .strictObject({
    retrieval_policy_id: z.string(),
    requested_mode: modeRequest,
    mode_fallback: z
      .strictObject({ from: mode, to: mode, reason: z.literal('query_embedding_failed') })
      .nullable()
      .openapi({
        description: 'Set when auto fell back from hybrid to fts because the query could not be embedded.',
      }),
    lexical_fallback: lexicalFallbackSchema.nullable().openapi({
      description:
        'Set when no entry matched enough query terms for the lexical admission rule (a query of 3+ terms must match max(2, ceil(n/4)) of them) and the search returned entries matching fewer instead of nothing; null otherwise.',
    }),
    lexical_query_terms: z.array(z.string()).nullable().openapi({
      description:
        'The distinct query terms as the lexical index analyses them (accents folded, lower case, stemmed), in query order; null when the search had no lexical channel (mode vector).',
    }),
    rerank: z
      .strictObject({
        policy_id: z.string(),
        pool_size: z.int().min(0).openapi({ description: 'How many coarse candidates the reranker saw.' }),
        used_fallback: z
          .boolean()
          .openapi({ description: 'RFC 0080 fallback: the model’s validated output held no usable rank.' }),
        degraded_reason: z
          .enum(['timeout', 'unavailable', 'invalid_output', 'saturated', 'deadline', 'rerank_failure'])
          .nullable()
          .openapi({
            description: 'Under fail_open: why the coarse order was returned instead of a selection.',
          }),
      })
      .nullable()
      .openapi({ description: 'null when no reranker ran (none configured, or no candidates).' }),
    multi_scope: z
      .strictObject({
        scope_count: z.int().min(2),
        rerank: z.enum(['reranked', 'skipped', 'none']).openapi({
          description:
            'reranked: the reranker ran on the scopes’ fused pool (POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MULTI_SCOPE=rerank); skipped: a reranker is configured and the setting is skip (the default); none: no reranker, or nothing to rerank.',
        }),
      })
      .nullable()
      .openapi({
        description: 'Set for a search of several scopes (scope_ids with 2 or more); null otherwise.',
      }),
    hits: z
      .array(
        z.strictObject({
          scope_id: z.string(),
          scope_rank: z.int().min(1).nullable().openapi({
            description:
              'In a search of several scopes: the hit’s rank in its own scope’s fused list; null otherwise.',
          }),
          entry_version_id: z.uuid(),
          coarse_rank: z
            .int()
            .min(1)
            .openapi({ description: 'Position in the fused (coarse) order, 1-based.' }),
          channel_ranks: channelNumbers.openapi({
            description: 'Rank within each channel that admitted the hit.',
          }),
          rrf_contributions: channelNumbers.nullable().openapi({
            description: '1 / (k + rank) per channel; null under a retrieval policy other than RRF.',
          }),
          reranker_selected: z
            .boolean()
            .nullable()
            .openapi({ description: 'Whether the reranker chose this hit; null when no reranker ran.' }),
          lexical: z
            .strictObject({
              own_terms: z.array(z.string()).openapi({
                description:
                  'Query terms found in the entry’s own text (they may be in its neighbours’ too).',
              }),
              context_terms: z.array(z.string()).openapi({
                description:
                  'Query terms the entry matched only through the words of its neighbours in the same source (RFC 0007).',
              }),
            })
            .nullable()
            .openapi({
              description:
                'Where the hit’s lexical match came from, computed from the same analysis and postings the lexical channel ranked with; terms as in `lexical_query_terms`. Both lists are empty for a hit the lexical index does not match (found by the vector channel only). null when the search had no lexical channel (mode vector).',
            }),
          authority: z
            .strictObject({
              fused_score: z.number().openapi({ description: 'The score fusion gave the hit.' }),
              boost: z.number().min(0).max(10).openapi({
                description:
                  'min(10, pinned_boost + tag_weight); the hit’s coarse score is fused_score × (1 + boost).',
              }),
              pinned_boost: z
                .number()
                .min(0)
                .openapi({ description: 'The configured pinned boost when the entry is pinned, else 0.' }),
              tag: z
                .string()
                .nullable()
                .openapi({ description: 'The entry’s weighted tag of the largest weight, or null.' }),
              tag_weight: z.number().min(0).openapi({ description: 'That tag’s weight, or 0.' }),
            })
            .nullable()
            .openapi({
              description:
                'How the authority step after fusion (RFC 0014) changed the hit’s score; null when every authority weight is 0 (no step ran).',
            }),
        }),
      )
      .openapi({ description: 'One item per returned hit, in the same order as `hits`.' }),
  })
  .openapi('SearchExplain');

export const searchResponseSchema = searchResponseBaseSchema
  .extend({
    explain: searchExplainSchema
      .optional()
      .openapi({ description: 'Only when the request asked for explain: "redacted".' }),
  })
  .openapi('SearchResponse');
