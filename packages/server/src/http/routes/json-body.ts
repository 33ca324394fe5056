import type { z } from '@hono/zod-openapi';

/** A required JSON request body with the given schema, for createRoute. */
export function jsonBody<Schema extends z.ZodType>(schema: Schema, description: string) {
  return { required: true, description, content: { 'application/json': { schema } } } as const;
}

/** A 200 JSON response with the given schema (and response headers, if any), for createRoute. */
export function jsonOk<Schema extends z.ZodType>(
  schema: Schema,
  description: string,
): {
  description: string;
  content: { 'application/json': { schema: Schema } };
};
export function jsonOk<Schema extends z.ZodType, Headers extends Record<string, unknown>>(
  schema: Schema,
  description: string,
  headers: Headers,
): { description: string; content: { 'application/json': { schema: Schema } }; headers: Headers };
export function jsonOk(schema: z.ZodType, description: string, headers?: Record<string, unknown>) {
  return { description, content: { 'application/json': { schema } }, ...(headers ? { headers } : {}) };
}
