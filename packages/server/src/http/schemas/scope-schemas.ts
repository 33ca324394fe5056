import { z } from '@hono/zod-openapi';
import { scopeIdField } from './common-schemas.js';

// The scope lifecycle's wire shapes (RFC 0015): deleting a scope, and the export's query.

export const deleteScopeRequestSchema = z
  .strictObject({ scope_id: scopeIdField })
  .openapi('DeleteScopeRequest');

export const scopeTombstoneSchema = z
  .object({
    scope_id: z.string(),
    artifact_id: z.uuid().openapi({ description: 'The deleted memory’s artifact id.' }),
    revision: z.int().min(1).openapi({ description: 'The head revision the scope had when it was deleted.' }),
    entries: z.int().min(0).openapi({ description: 'Entries (active or forgotten) current at that head.' }),
    deleted_at: z.string().openapi({ description: 'ISO 8601 timestamp.' }),
    deleted_by: z.string().nullable().optional().openapi({
      description: 'The API key id that deleted it; shown only to keys with the purge permission.',
    }),
  })
  .openapi('ScopeTombstone');

export const deleteScopeResponseSchema = z
  .object({
    status: z.enum(['deleted', 'unchanged']).openapi({
      description: 'deleted: the scope was deleted now; unchanged: it had been deleted already.',
    }),
    tombstone: scopeTombstoneSchema,
  })
  .openapi('DeleteScopeResponse');

export const exportQuerySchema = z.strictObject({
  scope_id: scopeIdField,
  revision: z
    .string()
    .regex(/^[1-9][0-9]{0,9}$/u, { error: 'revision must be an integer >= 1' })
    .optional()
    .openapi({ description: 'The revision to export (default: the head).', example: '12' }),
});
