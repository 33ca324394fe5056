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

/**
 * Text folded to lower case one character at a time, the way PostgreSQL's `lower()` folds under a
 * UTF-8 character type: each code point by its own lower-case mapping, with no context (so a final
 * capital sigma folds to σ, not ς) and one character to one (so İ, U+0130, folds to i rather than
 * to i and a combining dot). The list's text match folds both sides with it in memory and with
 * `lower()` in SQL, so every store keeps the same entries.
 */
export function foldCase(value: string): string {
  let folded = '';
  for (const character of value) folded += character === '\u0130' ? 'i' : character.toLowerCase();
  return folded;
}

/** Whether `text` contains `needle`, both folded by `foldCase` (RFC 0014, list's `text`). */
export function containsFolded(text: string, needle: string): boolean {
  return foldCase(text).includes(foldCase(needle));
}
