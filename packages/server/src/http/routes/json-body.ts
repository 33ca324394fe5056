import type { z } from '@hono/zod-openapi';

/** A required JSON request body with the given schema, for createRoute. */
export function jsonBody<Schema extends z.ZodType>(schema: Schema, description: string) {
  return { required: true, description, content: { 'application/json': { schema } } } as const;
}

/** A 200 JSON response with the given schema, for createRoute. */
export function jsonOk<Schema extends z.ZodType>(schema: Schema, description: string) {
  return { description, content: { 'application/json': { schema } } } as const;
}
