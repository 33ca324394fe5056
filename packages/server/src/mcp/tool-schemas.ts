import {
  ASSEMBLY_CONTRACT_COUNTS,
  ASSEMBLY_CONTRACT_VERSION,
  ASSEMBLY_ORDERINGS,
  EXACT_DUPLICATE_RULE_ID,
  FRAME_TEMPLATE_ID,
  NEAR_DUPLICATE_RULE_ID,
  NEAR_DUPLICATE_THRESHOLD_DEFAULT,
  TOKENIZER_IDS,
} from '@powercontext/context-assembly';
import {
  ENTRY_TEXT_MAX_CHARS,
  IDEMPOTENCY_KEY_MAX_CHARS,
  idempotencyKeyRule,
  LIST_LIMIT_MAX,
  LIST_TEXT_MAX_CHARS,
  QUERY_MAX_CHARS,
  REMEMBER_MAX_ENTRIES,
  SEARCH_LIMIT_DEFAULT,
  SEARCH_LIMIT_MAX,
  SEARCH_SCOPES_MAX,
} from '@powercontext/memory-core';
import { z } from 'zod';
import { prepareContextResponseSchema } from '../http/schemas/context-schemas.js';
import { lexicalFallbackSchema, searchResponseBaseSchema } from '../http/schemas/search-schemas.js';
import {
  entryFilterWireSchema,
  listOrderField,
  occurredAtField,
  pinnedField,
  tagsField,
} from '../http/schemas/steering-schemas.js';

// RFC 0014: the same filter and entry fields as the HTTP API, with the same names and rules.
const filterRule = entryFilterWireSchema.optional();
const filter = filterRule.describe(
  'Keep entries meeting every condition (times RFC 3339; metadata: top-level containment).',
);
// A field of search_memory repeated by another tool says so instead of its description again.
const asInSearch = 'As in search_memory.';

// Input schemas state the types, names, allowed values and numeric bounds a tool accepts, so the
// JSON Schema a client sees carries the real bounds. A call that breaks one comes back as the same
// `invalid_request` ToolError as any other rule (see memory-tools.ts), never as a protocol error. Text
// sizes and UUIDs are left to the memory service, which names the field and the rule.

/** Revisions are PostgreSQL `integer`s. */
export const REVISION_MAX = 2_147_483_647;

/** An integer in [min, max] whose failures read like the HTTP route's ("limit must be at most 50"). */
const bounded = (name: string, min: number, max: number) =>
  z
    .int({ error: `${name} must be an integer` })
    .min(min, { error: `${name} must be at least ${min}` })
    .max(max, { error: `${name} must be at most ${max}` });

// Descriptions say what an agent needs to call well and no more: every agent loads them at each start
// (RFC 0005, "Tool list size"; tool-list-size.test.ts keeps the whole list under 20k characters).
const scopeId = z.string().describe('The scope, e.g. a project or user id.');
const entryId = z.string().describe('An entry id from remember_memory or a search hit.');
const revision = z.int().min(1).max(REVISION_MAX).describe('Read at this revision (default: the latest).');
const minRevisionRule = bounded('min_revision', 1, REVISION_MAX).optional();
const minRevision = minRevisionRule.describe(
  'Read at least this revision (memory.revision of your last write).',
);
/**
 * min_revision on a server whose reads go to replicas, where it matters: it tells what a lagging
 * replica does. Without replicas every read sees the latest revision, so the short form says enough.
 */
export const replicaMinRevision = minRevisionRule.describe(
  'Read at least this revision (memory.revision of your last write); a replica behind it is awaited briefly, then the primary or revision_not_visible.',
);
const kind = z.string().describe('A label such as note or fact: 1-64 of a-z 0-9 _ . -');
// Not z.json(): its recursive JSON Schema ($ref) is refused by some MCP clients. Tool arguments arrive
// as JSON, so any object here is a JSON object; the memory service checks its size and text.
const metadata = z.record(z.string(), z.unknown()).describe('A JSON object, at most 16 KB.');
const text = z.string().describe(`The entry text, 1-${ENTRY_TEXT_MAX_CHARS} characters.`);
// The key's rule is checked here, with the HTTP header's messages, so a bad key names the argument.
const idempotencyKey = idempotencyKeyRule('idempotency_key')
  .optional()
  .describe(
    `Retry key, 1-${IDEMPOTENCY_KEY_MAX_CHARS} visible ASCII (e.g. a UUID): a repeat replays the first result, writing nothing; other arguments fail with idempotency_key_reused.`,
  );

const minRevisions = z.record(z.string(), z.int().min(1).max(REVISION_MAX)).optional();

export const searchInput = z.strictObject({
  scope_id: scopeId.optional().describe('The scope, e.g. a project or user id; or scope_ids.'),
  scope_ids: z
    .array(z.string())
    .min(1)
    .max(SEARCH_SCOPES_MAX)
    .optional()
    .describe(
      `Instead of scope_id: 1-${SEARCH_SCOPES_MAX} distinct scopes searched at once; hits fused by rank, each naming its scope_id.`,
    ),
  min_revision: minRevision,
  min_revisions: minRevisions.describe('With scope_ids: min_revision per scope.'),
  query: z.string().describe(`What to look for, in words (1-${QUERY_MAX_CHARS} characters).`),
  limit: bounded('limit', 1, SEARCH_LIMIT_MAX)
    .optional()
    .describe(`How many hits to return, 1-${SEARCH_LIMIT_MAX} (default ${SEARCH_LIMIT_DEFAULT}).`),
  mode: z
    .enum(['auto', 'fts', 'vector', 'hybrid'])
    .optional()
    .describe('fts: words; vector: similarity; hybrid: both; auto (default): hybrid when it can.'),
  filter,
});

export const rememberInput = z.strictObject({
  scope_id: scopeId,
  entries: z
    .array(
      z.strictObject({
        text,
        kind: kind.optional(),
        sources: z
          .array(
            z.strictObject({
              source_id: z.string().describe('Where the text came from, e.g. a conversation id.'),
              locator: z.string().optional().describe('A place in it, e.g. a turn id.'),
            }),
          )
          .optional(),
        position: z
          .strictObject({
            source_id: z.string().describe('An ordered source, e.g. a session or a document.'),
            order: z
              .union([z.number(), z.array(z.number())])
              .describe('The place in it, e.g. a turn number; arrays compare element by element.'),
          })
          .optional()
          .describe('Where the entry sits in an ordered source; its neighbours there lend it context.'),
        metadata: metadata.optional(),
        tags: tagsField.optional(),
        pinned: pinnedField.optional(),
        occurred_at: occurredAtField.optional(),
      }),
    )
    .describe(`1-${REMEMBER_MAX_ENTRIES} entries.`),
  idempotency_key: idempotencyKey,
});

export const listInput = z.strictObject({
  scope_id: scopeId,
  min_revision: minRevision,
  state: z.enum(['active', 'inactive', 'all']).optional().describe('Which entries to list (default active).'),
  revision: revision.optional(),
  cursor: z.string().optional().describe('next_cursor of the previous page.'),
  limit: z
    .int()
    .min(1)
    .max(LIST_LIMIT_MAX)
    .optional()
    .describe(`Entries per page, 1-${LIST_LIMIT_MAX} (default 50).`),
  filter: filterRule.describe(asInSearch),
  order: listOrderField.optional(),
  text: z
    .string()
    .min(1)
    .max(LIST_TEXT_MAX_CHARS)
    .optional()
    .describe(
      `Only entries whose text contains this, ignoring case (1-${LIST_TEXT_MAX_CHARS} characters, matched literally).`,
    ),
});

export const changesInput = z.strictObject({
  scope_id: scopeId,
  min_revision: minRevision,
  from_revision: bounded('from_revision', 0, REVISION_MAX)
    .optional()
    .describe('Changes after this revision (default 0: from the start).'),
  to_revision: revision.optional().describe('Up to and including this revision (default: the latest).'),
  cursor: z.string().optional().describe('next_cursor of the previous page.'),
  limit: z
    .int()
    .min(1)
    .max(LIST_LIMIT_MAX)
    .optional()
    .describe(`Changes per page, 1-${LIST_LIMIT_MAX} (default 50).`),
});

export const scopesInput = z.strictObject({});

export const getInput = z.strictObject({
  scope_id: scopeId,
  entry_id: entryId,
  revision: revision.optional(),
  min_revision: minRevision,
});

export const reviseInput = z.strictObject({
  scope_id: scopeId,
  entry_id: entryId,
  text,
  kind: kind.optional(),
  metadata: metadata.optional(),
  tags: tagsField.optional().describe('Replaces the tags; absent keeps them.'),
  pinned: pinnedField.optional(),
  occurred_at: occurredAtField.nullable().optional().describe('RFC 3339; null clears it, absent keeps it.'),
  idempotency_key: idempotencyKey,
});

export const forgetInput = z.strictObject({
  scope_id: scopeId,
  entry_id: entryId,
  idempotency_key: idempotencyKey,
});

const counts = ASSEMBLY_CONTRACT_COUNTS;

export const prepareContextInput = searchInput.extend({
  scope_ids: searchInput.shape.scope_ids.describe(asInSearch),
  min_revisions: searchInput.shape.min_revisions.describe(asInSearch),
  query: searchInput.shape.query.describe(asInSearch),
  limit: searchInput.shape.limit.describe(asInSearch),
  mode: searchInput.shape.mode.describe(asInSearch),
  filter: filterRule.describe(asInSearch),
  contract: z
    .strictObject({
      version: z.literal(ASSEMBLY_CONTRACT_VERSION).optional(),
      token_budget: bounded('token_budget', counts.tokenBudget.min, counts.tokenBudget.max)
        .optional()
        .describe(
          `Most tokens of the framed context, frame included, ${counts.tokenBudget.min}-${counts.tokenBudget.max} (default ${counts.tokenBudget.default}).`,
        ),
      max_chunks: bounded('max_chunks', counts.maxChunks.min, counts.maxChunks.max)
        .optional()
        .describe(
          `Most chunks, ${counts.maxChunks.min}-${counts.maxChunks.max} (default ${counts.maxChunks.default}).`,
        ),
      per_source_cap: bounded('per_source_cap', counts.perSourceCap.min, counts.perSourceCap.max)
        .optional()
        .describe(
          `Most chunks from one source, ${counts.perSourceCap.min}-${counts.perSourceCap.max} (default ${counts.perSourceCap.default}).`,
        ),
      duplicates: z
        .strictObject({
          exact: z.literal(EXACT_DUPLICATE_RULE_ID).optional(),
          near: z
            .strictObject({
              rule: z.literal(NEAR_DUPLICATE_RULE_ID).optional(),
              threshold: z
                .number({ error: 'duplicates.near.threshold must be a number' })
                .gt(0, { error: 'duplicates.near.threshold must be above 0' })
                .max(1, { error: 'duplicates.near.threshold must be at most 1' })
                .optional()
                .describe(
                  `Similarity from which a chunk repeats a chosen one, in (0, 1] (default ${NEAR_DUPLICATE_THRESHOLD_DEFAULT}).`,
                ),
            })
            .nullable()
            .optional()
            .describe('null turns near-duplicate detection off; exact duplicates are always dropped.'),
        })
        .optional(),
      ordering: z
        .enum(ASSEMBLY_ORDERINGS)
        .optional()
        .describe('evidence_order (default): best first; generator_order: retrieval order.'),
      framing: z.literal(FRAME_TEMPLATE_ID).optional(),
      tokenizer: z.enum(TOKENIZER_IDS).optional().describe('How tokens are counted (default o200k_base).'),
    })
    .optional()
    .describe('How to pack the context.'),
});

export const deleteScopeInput = z.strictObject({ scope_id: scopeId });

// The results are the HTTP v1 response bodies, so a tool and its route answer with the same JSON.
// tools/list advertises them in short (advertised-output.ts); these are the full shapes.
export {
  changesResponseSchema as changesOutput,
  entryWriteResponseSchema as entryWriteOutput,
  getEntryResponseSchema as getOutput,
  listEntriesResponseSchema as listOutput,
  purgeResponseSchema as purgeOutput,
  rememberResponseSchema as rememberOutput,
} from '../http/schemas/memory-schemas.js';
export { deleteScopeResponseSchema as deleteScopeOutput } from '../http/schemas/scope-schemas.js';
/** The v1 search response, plus `lexical_fallback` when the admission fallback supplied the hits. */
export const searchOutput = searchResponseBaseSchema.extend({
  lexical_fallback: lexicalFallbackSchema.optional().openapi({
    description:
      'Present when no entry matched enough query terms and the hits are entries matching fewer of them (weaker evidence).',
  }),
});

/** The prepare_context result without `context`, which the tool answers as its text content. */
export const prepareContextOutput = prepareContextResponseSchema.omit({ context: true });
export { scopesResponseSchema as scopesOutput } from '../http/schemas/system-schemas.js';
