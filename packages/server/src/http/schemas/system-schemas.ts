import { z } from '@hono/zod-openapi';
import { PERMISSIONS } from '../../auth/principal.js';
import { WIRE_CHANNELS } from '../wire-channels.js';

export const capabilitiesResponseSchema = z
  .object({
    api_version: z.literal('v1'),
    search_modes: z.array(z.enum(['auto', 'fts', 'vector', 'hybrid'])),
    search_channels: z.array(z.enum(WIRE_CHANNELS)).openapi({
      description:
        'The channels a search runs (those its mode allows), in fusion order: fts and vector, plus entity and graph when configured (RFC 0013).',
    }),
    embedding_profile: z.object({
      id: z.string(),
      dimension: z.int(),
      normalization: z.enum(['l2', 'none']),
      min_cosine: z.number(),
    }),
    retrieval_policy_id: z.string(),
    rerank: z
      .object({
        policy_id: z.string(),
        candidate_limit: z.int(),
        failure_policy: z.enum(['fail_closed', 'fail_open']),
      })
      .nullable()
      .openapi({ description: 'The rerank policy in use; null when search returns the coarse order.' }),
    explain: z.array(z.literal('redacted')).openapi({
      description: 'Explain levels search accepts from this key: empty without the explain permission.',
    }),
  })
  .openapi('CapabilitiesResponse');

export const healthResponseSchema = z.object({ status: z.enum(['ok', 'ready']) }).openapi('HealthResponse');

export const readyResponseSchema = z
  .object({
    status: z.literal('ready'),
    database: z
      .object({
        reachable: z.boolean(),
        migrations_current: z
          .boolean()
          .openapi({ description: 'The database holds every migration of this version.' }),
      })
      .optional()
      .openapi({ description: 'Only for a caller with a valid API key, or on a keyless server.' }),
    replicas: z
      .array(
        z.object({
          name: z.string().openapi({ description: 'host:port/database of the replica.' }),
          lag_seconds: z.number().nullable().openapi({
            description:
              'Seconds since the last transaction the replica replayed (0 when it has replayed all it received); null when it did not answer.',
          }),
          down: z
            .boolean()
            .openapi({ description: 'Skipped by reads after a connection failure (retried after 5 s).' }),
        }),
      )
      .optional()
      .openapi({
        description:
          'Each read replica (POWERCONTEXT_SERVER_READ_DATABASE_URL); a lagging or down replica does not make the server unready: reads go to the primary. Only for a caller with a valid API key, or on a keyless server.',
      }),
  })
  .openapi('ReadyResponse');

export const scopesResponseSchema = z
  .object({
    any_scope: z.boolean().openapi({ description: 'True when the key may use every scope.' }),
    scopes: z.array(z.string()).openapi({
      description:
        'The scopes the key may use; for a key of every scope, the scopes that hold memory (any other name works too).',
    }),
    permissions: z.array(z.enum(PERMISSIONS)),
  })
  .openapi('ScopesResponse');
