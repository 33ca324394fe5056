import { z } from '@hono/zod-openapi';
import { SEARCH_SCOPES_MAX } from '@powercontext/memory-core';
import { artifactRefSchema, minRevisionField, scopeIdField } from './common-schemas.js';

const scopeIdItem = z
  .string({ error: 'scope_ids items must be strings' })
  .min(1, { error: 'scope_ids items must be at least 1 character' })
  .max(256, { error: 'scope_ids items must be at most 256 characters' });

/**
 * Which scopes a search or a context preparation reads (issue 29, "Several scopes"): `scope_id`, or
 * `scope_ids` (1-16 distinct scopes), exactly one of them; and the revision each must see, `min_revision`
 * with `scope_id`, `min_revisions` (per scope) with `scope_ids`. `checkScopeTargets` enforces the pairs.
 */
export const scopeTargetFields = {
  scope_id: scopeIdField.optional().openapi({
    description: 'The scope whose Memory the request reads. Exactly one of scope_id and scope_ids.',
    example: 'project',
  }),
  scope_ids: z
    .array(scopeIdItem, { error: 'scope_ids must be an array of scope ids' })
    .min(1, { error: 'scope_ids must name at least 1 scope' })
    .max(SEARCH_SCOPES_MAX, { error: `scope_ids must name at most ${SEARCH_SCOPES_MAX} scopes` })
    .optional()
    .openapi({
      description: `Several scopes read in one request (1-${SEARCH_SCOPES_MAX}, distinct), instead of scope_id: each at its own head, their hits fused by Reciprocal Rank Fusion, each hit citing its scope. The key needs the read permission on every one (403 names the first it lacks). Whether the reranker runs follows POWERCONTEXT_SERVER_RUNTIME_MEMORY_RERANK_MULTI_SCOPE (skip by default).`,
      example: ['user-42', 'project'],
    }),
  min_revision: minRevisionField,
  min_revisions: z
    .record(
      z.string(),
      z
        .int({ error: 'min_revisions values must be integers' })
        .min(1, { error: 'min_revisions values must be at least 1' }),
      { error: 'min_revisions must be an object of scope id to revision' },
    )
    .optional()
    .openapi({
      description:
        'With scope_ids: the revision each named scope must be read at, at least (min_revision per scope). A scope left out has no minimum; a key that is not in scope_ids is a 422.',
      example: { project: 12 },
    }),
};

export interface ScopeTargetsBody {
  scope_id?: string | undefined;
  scope_ids?: string[] | undefined;
  min_revision?: number | undefined;
  min_revisions?: Record<string, number> | undefined;
}

/** The rules between the scope fields, each as a field (dotted path) and the rule it breaks. */
export function scopeTargetIssues(body: ScopeTargetsBody): { path: (string | number)[]; message: string }[] {
  if ((body.scope_id === undefined) === (body.scope_ids === undefined)) {
    return [{ path: ['scope_ids'], message: 'exactly one of scope_id and scope_ids is required' }];
  }
  if (!body.scope_ids) {
    return body.min_revisions === undefined
      ? []
      : [
          {
            path: ['min_revisions'],
            message: 'min_revisions goes with scope_ids; use min_revision with scope_id',
          },
        ];
  }
  const scopeIds = body.scope_ids;
  const issues: { path: (string | number)[]; message: string }[] = [];
  const repeated = scopeIds.findIndex((scopeId, index) => scopeIds.indexOf(scopeId) !== index);
  if (repeated >= 0)
    issues.push({ path: ['scope_ids', repeated], message: 'scope_ids must not name a scope twice' });
  if (body.min_revision !== undefined)
    issues.push({ path: ['min_revision'], message: 'use min_revisions with scope_ids' });
  for (const scopeId of Object.keys(body.min_revisions ?? {})) {
    if (!scopeIds.includes(scopeId)) {
      issues.push({
        path: ['min_revisions', scopeId],
        message: 'min_revisions keys must be scopes named in scope_ids',
      });
    }
  }
  return issues;
}

/** `scopeTargetIssues` as a body schema's refinement: each a 422 naming its field. */
export function checkScopeTargets(body: ScopeTargetsBody, ctx: z.RefinementCtx): void {
  for (const { path, message } of scopeTargetIssues(body)) ctx.addIssue({ code: 'custom', path, message });
}

/** Each scope a request read and the revision it read (null: never written), in the order asked. */
export const scopesReadSchema = z
  .array(
    z.strictObject({
      scope_id: z.string(),
      memory: z.union([artifactRefSchema, z.null()]),
    }),
  )
  .openapi({
    description:
      'Only for scope_ids: every scope read, in the order asked, with the revision it was read at (memory null: never written).',
  });
