import type { Extensions } from '@electric-sql/pglite';

/**
 * The extensions every PGlite instance of the store loads: pgvector for the vector channel and
 * `unaccent` for the lexical analysis (migration 0008 folds accents in the index and the queries).
 * PGlite loads an extension's files only when it is passed here, also for a data directory where the
 * extension already exists, so every place that creates a PGlite over the store's data uses this list.
 * Loaded on first use, so a process on PostgreSQL never loads PGlite.
 */
export async function pgliteExtensions(): Promise<Extensions> {
  const [{ vector }, { unaccent }] = await Promise.all([
    import('@electric-sql/pglite-pgvector'),
    import('@electric-sql/pglite/contrib/unaccent'),
  ]);
  return { vector, unaccent };
}
