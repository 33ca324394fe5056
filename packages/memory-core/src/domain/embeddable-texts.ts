import { type FieldIssue, ValidationError } from '../errors/validation-error.js';

/**
 * Every embedder calls this before any model call: each text must be a string without NUL (U+0000)
 * and without lone surrogates, the same rule stored text follows (`storableText`). Empty text is
 * allowed (it embeds like any other). Violations raise one ValidationError naming `texts.<i>`.
 */
export function assertEmbeddableTexts(texts: readonly string[]): void {
  const issues: FieldIssue[] = [];
  for (const [index, text] of texts.entries()) {
    if (typeof text !== 'string') issues.push({ field: `texts.${index}`, rule: 'must be a string' });
    else if (text.includes('\u0000'))
      issues.push({ field: `texts.${index}`, rule: 'must not contain NUL (U+0000)' });
    else if (!(text as string & { isWellFormed(): boolean }).isWellFormed()) {
      issues.push({ field: `texts.${index}`, rule: 'must be well-formed Unicode (no lone surrogates)' });
    }
  }
  if (issues.length > 0) throw new ValidationError(issues);
}
