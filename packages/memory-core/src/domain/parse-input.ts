import type { z } from 'zod';
import { ValidationError } from '../errors/validation-error.js';

/**
 * Parses untrusted input with a schema; failures become a ValidationError naming each field and rule.
 * `field` names the input itself when it is a single value (e.g. `scopeId`).
 */
export function parseInput<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  field?: string,
): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ValidationError(
    result.error.issues.map((issue) => ({
      field: [field, ...issue.path.map(String)].filter(Boolean).join('.') || '(request)',
      rule: issue.message,
    })),
  );
}
