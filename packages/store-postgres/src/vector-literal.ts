import { toSql } from 'pgvector';

/** A vector in pgvector's text form, for a `::vector` cast. Non-finite values are refused. */
export function toVectorLiteral(vector: readonly number[]): string {
  if (vector.length === 0 || !vector.every(Number.isFinite)) {
    throw new TypeError('a vector must be non-empty and hold finite numbers only');
  }
  return toSql([...vector]) as string;
}

/**
 * A vector in pgvector's `sparsevec` text form (`{index:value,...}/dimension`, 1-based, zeros left
 * out), the form vectors are stored in since migration 0004. The values are the same float4 values a
 * `vector` would hold, so scores do not change; a sparse vector (the local embedder's) is stored and
 * scored in proportion to its non-zero values instead of its dimension.
 */
export function toSparseVectorLiteral(vector: readonly number[]): string {
  if (vector.length === 0 || !vector.every(Number.isFinite)) {
    throw new TypeError('a vector must be non-empty and hold finite numbers only');
  }
  const values: string[] = [];
  vector.forEach((value, index) => {
    if (value !== 0) values.push(`${index + 1}:${value}`);
  });
  return `{${values.join(',')}}/${vector.length}`;
}

/**
 * Literals as one PostgreSQL array literal, for a cast such as `::vector[]`: each element quoted. For
 * vector literals and UUIDs only (digits, letters, signs, dots, exponents, commas, colons, slashes,
 * brackets and braces: nothing that needs escaping inside double quotes). Built here rather than by the driver, since
 * drivers differ in how they quote array elements.
 */
export function quotedArrayLiteral(literals: readonly string[]): string {
  return `{${literals.map((literal) => `"${literal}"`).join(',')}}`;
}
