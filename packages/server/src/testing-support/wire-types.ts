import type { z } from '@hono/zod-openapi';
import type { prepareContextResponseSchema } from '../http/schemas/context-schemas.js';
import type {
  changesResponseSchema,
  entryWriteResponseSchema,
  getEntryResponseSchema,
  listEntriesResponseSchema,
  purgeResponseSchema,
  rememberResponseSchema,
} from '../http/schemas/memory-schemas.js';
import type { searchResponseSchema } from '../http/schemas/search-schemas.js';
import type { capabilitiesResponseSchema } from '../http/schemas/system-schemas.js';

/** The response bodies of HTTP v1, as the tests read them. */
export type RememberResponse = z.infer<typeof rememberResponseSchema>;
export type EntryWriteResponse = z.infer<typeof entryWriteResponseSchema>;
export type ListEntriesResponse = z.infer<typeof listEntriesResponseSchema>;
export type GetEntryResponse = z.infer<typeof getEntryResponseSchema>;
export type ChangesResponse = z.infer<typeof changesResponseSchema>;
export type PurgeResponse = z.infer<typeof purgeResponseSchema>;
export type SearchResponse = z.infer<typeof searchResponseSchema>;
export type CapabilitiesResponse = z.infer<typeof capabilitiesResponseSchema>;
export type PrepareContextResponse = z.infer<typeof prepareContextResponseSchema>;
