import { z } from 'zod';
import { ValidationError } from '../errors/validation-error.js';

/** Opaque pagination cursors: base64url JSON, validated on the way back in. */
export function encodeCursor(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

export function decodeCursor<Schema extends z.ZodType>(schema: Schema, cursor: string): z.output<Schema> {
  try {
    return schema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw new ValidationError([
      { field: 'cursor', rule: 'cursor must be a value returned by this operation' },
    ]);
  }
}

export const entriesCursorSchema = z.strictObject({
  revision: z.int().min(1),
  after: z.uuid(),
  /** The list's order when it is not `entry_id`, and the revision of the last version listed. */
  order: z.enum(['newest', 'oldest']).optional(),
  at: z.int().min(1).optional(),
});
export const changesCursorSchema = z.strictObject({
  from: z.int().min(0),
  to: z.int().min(1),
  revision: z.int().min(1),
  after: z.uuid(),
});
