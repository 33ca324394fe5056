import { z } from 'zod';

const hasLoneSurrogate = (value: string): boolean =>
  !(value as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * Text that PostgreSQL can store byte for byte: well-formed UTF-16 (no lone surrogates) and no NUL.
 * Everything else, emoji, right-to-left and CJK text included, round-trips exactly.
 */
export function storableText(field: string, min: number, max: number) {
  return z
    .string({ error: `${field} must be a string` })
    .min(min, { error: `${field} must be at least ${min} ${min === 1 ? 'character' : 'characters'}` })
    .max(max, { error: `${field} must be at most ${max} ${max === 1 ? 'character' : 'characters'}` })
    .refine((value) => !value.includes('\u0000'), { error: `${field} must not contain NUL (U+0000)` })
    .refine((value) => !hasLoneSurrogate(value), {
      error: `${field} must be well-formed Unicode (no lone surrogates)`,
    });
}

export const scopeIdSchema = storableText('scope id', 1, 256).refine((value) => value.trim() === value, {
  error: 'scope id must not start or end with white space',
});
