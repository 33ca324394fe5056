/**
 * What every session of the store sets, on PostgreSQL and on PGlite alike. pgvector's
 * `hnsw.iterative_scan = strict_order`: an HNSW scan whose rows a filter (the scope, the active
 * versions) rejects goes on scanning until it has the rows asked for, still in distance order.
 *
 * A pooled PostgreSQL connection runs `SET` for each when it connects; PGlite starts with them as
 * start parameters (`-c`), which costs no statement at open.
 */
export const SESSION_SETTINGS: readonly (readonly [name: string, value: string])[] = [
  ['hnsw.iterative_scan', 'strict_order'],
];

/** The settings as one statement, for a connection that has just opened. */
export const SET_SESSION_SETTINGS = SESSION_SETTINGS.map(([name, value]) => `SET ${name} = ${value}`).join(
  '; ',
);

/** The settings as PostgreSQL start parameters. */
export const SESSION_START_PARAMS = SESSION_SETTINGS.flatMap(([name, value]) => ['-c', `${name}=${value}`]);
