import { type RawBuilder, sql } from 'kysely';

/** Turns a text (a parameter or an SQL expression) into the tsvector that both entries and queries use. */
export type Analyze = (text: string | RawBuilder<unknown>) => RawBuilder<string>;

/**
 * The lexical analysis of entries and queries alike: accents folded (`unaccent`, migration 0008),
 * then the text search configuration (stop words, stemming). Both sides must go through this one
 * expression, or the index stops matching the queries.
 */
export function lexicalAnalysis(textSearchConfig: string): Analyze {
  return (text) => sql<string>`to_tsvector(${textSearchConfig}::regconfig, unaccent(${text}))`;
}

/** What a channel returns of a candidate: its identity, never its content (see `entryVersions`). */
export interface CandidateRow {
  entry_id: string;
  entry_version_id: string;
}

/**
 * The scope's purge mark: its newest purge revision (NULL: none). A purge rewrites past revisions, so
 * an index held in memory keeps the mark it was read with, and every use reads it again.
 */
export function purgeMarkOf(scopeId: string | RawBuilder<string>) {
  return sql`(SELECT max(pe.revision) FROM pc_purged_entries pe WHERE pe.scope_id = ${scopeId})`;
}

/**
 * A text[] literal of any strings (each quoted, its quotes and backslashes escaped), for a statement
 * run by `executePrepared`, which sends arguments as string constants.
 */
export function textArrayLiteral(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
}

export function parseJsonValue(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}
