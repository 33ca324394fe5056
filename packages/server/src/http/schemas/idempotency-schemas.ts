import { z } from '@hono/zod-openapi';
import { IDEMPOTENCY_KEY_MAX_CHARS, idempotencyKeyRule } from '@powercontext/memory-core';

/** The request header that makes a write idempotent (RFC 0005, "Idempotent writes"). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** The response header of a write answered from its idempotency record instead of written again. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** The headers a write route reads; a bad key is 422 invalid_request naming `Idempotency-Key`. */
export const idempotencyHeadersSchema = z.object({
  [IDEMPOTENCY_KEY_HEADER]: idempotencyKeyRule(IDEMPOTENCY_KEY_HEADER)
    .optional()
    .openapi({
      description: `Makes the write idempotent in its scope, for this API key, for the server's retention time (24 hours by default): a repeat with the same key and the same body answers the first result, with \`${IDEMPOTENT_REPLAYED_HEADER}: true\`, and writes nothing; the same key with another body (or on another write route) is 422 \`idempotency_key_reused\`. Keys are kept per API key: another key's write with the same key is its own. 1-${IDEMPOTENCY_KEY_MAX_CHARS} visible ASCII characters; a random UUID per logical write is a good key.`,
      example: '4f9c1c2e-7b1d-4a8e-9d55-0c2b8f6e3a10',
    }),
});

/** The 200 answer's headers of a write route. */
export const writeResponseHeaders = {
  [IDEMPOTENT_REPLAYED_HEADER]: {
    description:
      'Present (`true`) when the answer is the stored result of an earlier request with the same Idempotency-Key: the body is that first answer, byte for byte, and nothing was written now.',
    schema: { type: 'string' as const, enum: ['true'] },
  },
};
