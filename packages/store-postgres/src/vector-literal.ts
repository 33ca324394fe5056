import { toSql } from 'pgvector';

/** A vector in pgvector's text form, for a `::vector` cast. Non-finite values are refused. */
export function toVectorLiteral(vector: readonly number[]): string {
  if (vector.length === 0 || !vector.every(Number.isFinite)) {
    throw new TypeError('a vector must be non-empty and hold finite numbers only');
  }
  return toSql([...vector]) as string;
}

/**
 * Vectors as one PostgreSQL array literal, for a `::vector[]` cast: each element quoted (a vector's
 * text holds only digits, signs, dots, exponents, commas and brackets, so nothing needs escaping).
 * Built here rather than by the driver, since drivers differ in how they quote array elements.
 */
export function vectorArrayLiteral(vectors: readonly (readonly number[])[]): string {
  return `{${vectors.map((vector) => `"${toVectorLiteral(vector)}"`).join(',')}}`;
}
