import { toSql } from 'pgvector';

/** A vector in pgvector's text form, for a `::vector` cast. Non-finite values are refused. */
export function toVectorLiteral(vector: readonly number[]): string {
  if (vector.length === 0 || !vector.every(Number.isFinite)) {
    throw new TypeError('a vector must be non-empty and hold finite numbers only');
  }
  return toSql([...vector]) as string;
}
