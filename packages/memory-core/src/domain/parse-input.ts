import type { z } from 'zod';
import { ValidationError } from '../errors/validation-error.js';

/** Parses untrusted input with a schema; failures become a ValidationError naming each field and rule. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ValidationError(
    result.error.issues.map((issue) => ({
      field: issue.path.length === 0 ? '(request)' : issue.path.map(String).join('.'),
      rule: issue.message,
    })),
  );
}
