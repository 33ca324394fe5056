import type { components, paths } from './generated/openapi.js';

/** The JSON schemas of the HTTP v1 API, generated from openapi/powercontext.yaml. */
export type Schemas = components['schemas'];

export type ArtifactRef = Schemas['ArtifactRef'];
export type SourceRef = Schemas['SourceRef'];
export type EntryVersion = Schemas['EntryVersion'];
export type SearchRequest = Schemas['SearchRequest'];
export type SearchResponse = Schemas['SearchResponse'];
export type SearchHit = Schemas['SearchHit'];
export type SearchExplain = Schemas['SearchExplain'];
export type EntryFilter = Schemas['EntryFilter'];
export type RememberRequest = Schemas['RememberRequest'];
export type RememberResponse = Schemas['RememberResponse'];
export type ListEntriesRequest = Schemas['ListEntriesRequest'];
export type ListEntriesResponse = Schemas['ListEntriesResponse'];
export type GetEntryRequest = Schemas['GetEntryRequest'];
export type GetEntryResponse = Schemas['GetEntryResponse'];
export type ReviseRequest = Schemas['ReviseRequest'];
export type EntryTargetRequest = Schemas['EntryTargetRequest'];
export type EntryWriteResponse = Schemas['EntryWriteResponse'];
export type ChangesRequest = Schemas['ChangesRequest'];
export type ChangesResponse = Schemas['ChangesResponse'];
export type EntryChange = Schemas['EntryChange'];
export type PurgedChange = Schemas['PurgedChange'];
export type PurgedEntry = Schemas['PurgedEntry'];
export type PurgeInfo = Schemas['PurgeInfo'];
export type PurgeResponse = Schemas['PurgeResponse'];
export type DeleteScopeRequest = Schemas['DeleteScopeRequest'];
export type DeleteScopeResponse = Schemas['DeleteScopeResponse'];
export type ScopeTombstone = Schemas['ScopeTombstone'];
/** One line of GET /v1/memory/export: an entry as POST /v1/memory/remember takes it. */
export type ExportedEntry = RememberRequest['entries'][number];
export interface ExportRequest {
  scope_id: string;
  /** The revision to export; default the head. */
  revision?: number;
}
export type PurgeTombstone = Schemas['PurgeTombstone'];
export type PrepareContextRequest = Schemas['PrepareContextRequest'];
export type PrepareContextResponse = Schemas['PrepareContextResponse'];
export type AssemblyContractRequest = Schemas['AssemblyContractRequest'];
export type AssemblyContract = Schemas['AssemblyContract'];
export type ContextChunk = Schemas['ContextChunk'];
export type OmittedCandidate = Schemas['OmittedCandidate'];
export type ScopeSummaryRequest = Schemas['ScopeSummaryRequest'];
export type ScopeSummaryResponse = Schemas['ScopeSummaryResponse'];
export type CapabilitiesResponse = Schemas['CapabilitiesResponse'];
export type HealthResponse = Schemas['HealthResponse'];
export type ReadyResponse = Schemas['ReadyResponse'];
export type ErrorResponse = Schemas['ErrorResponse'];

/** Every error code the server answers with (the `error.code` of an error body). */
export type ServerErrorCode = ErrorResponse['error']['code'];

type Json<Content> = Content extends { content: { 'application/json': infer Body } } ? Body : never;

/** The JSON body a POST route takes. */
export type PostBody<Path extends keyof paths> = paths[Path] extends { post: { requestBody: infer Body } }
  ? Json<Body>
  : never;

/** The JSON body a route answers with on 200. */
export type OkBody<Path extends keyof paths, Method extends 'get' | 'post'> = paths[Path] extends {
  [M in Method]: { responses: { 200: infer Ok } };
}
  ? Json<Ok>
  : never;
