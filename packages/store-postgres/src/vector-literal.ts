import { toSql } from 'pgvector';

/** A vector in pgvector's text form, for a `::vector` cast. Non-finite values are refused. */
export function toVectorLiteral(vector: readonly number[]): string {
  if (vector.length === 0 || !vector.every(Number.isFinite)) {
    throw new TypeError('a vector must be non-empty and hold finite numbers only');
  }
  return toSql([...vector]) as string;
}

/**
 * Literals as one PostgreSQL array literal, for a cast such as `::vector[]`: each element quoted. For
 * vector literals only (digits, signs, dots, exponents, commas, colons, slashes, brackets and braces:
 * nothing that needs escaping inside double quotes). Built here rather than by the driver, since
 * drivers differ in how they quote array elements.
 */
export function quotedArrayLiteral(literals: readonly string[]): string {
  return `{${literals.map((literal) => `"${literal}"`).join(',')}}`;
}
