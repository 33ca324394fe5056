/**
 * The embedded store's buffer pool in the long-lived processes (`server run`, `mcp`): sized to the data
 * directory, between 32 and 128 MB (`fitSharedBuffers` in store-postgres), since PGlite zeroes the whole
 * pool at every start (rfcs/0001, "A pool the size of the data"). The open begun ahead of the runtime and
 * the runtime's own open must ask for the same pool, or the runtime opens the directory again.
 */
export const LONG_LIVED_POOL = 'fit';
