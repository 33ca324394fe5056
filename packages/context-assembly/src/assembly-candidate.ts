import type { MemoryRef } from '@powercontext/memory-core';
import { z } from 'zod';

/** One retrieved chunk offered to assembly, with the identity it is cited by. */
export interface AssemblyCandidate {
  /** The memory revision the chunk was read at. */
  memoryRef: MemoryRef;
  entryId: string;
  entryVersionId: string;
  /** The source identity the per-source cap counts, e.g. a document or conversation id. */
  source: string;
  /** The exact text; it is never cut: a chunk is packed whole or omitted. */
  text: string;
}

/** Most candidates one assembly accepts (the coarse pool is at most 100). */
export const ASSEMBLY_MAX_CANDIDATES = 1_000;

const identity = (field: string) =>
  z.string({ error: `${field} must be a string` }).min(1, { error: `${field} must not be empty` });

export const assemblyCandidateSchema = z.strictObject({
  memoryRef: z.strictObject({
    artifactId: identity('memoryRef.artifactId'),
    scopeId: identity('memoryRef.scopeId'),
    revision: z.int({ error: 'memoryRef.revision must be an integer' }).min(0, {
      error: 'memoryRef.revision must be at least 0',
    }),
  }),
  entryId: identity('entryId'),
  entryVersionId: identity('entryVersionId'),
  source: identity('source'),
  text: z.string({ error: 'text must be a string' }),
});

export const assemblyCandidatesSchema = z
  .array(assemblyCandidateSchema, { error: 'candidates must be an array' })
  .max(ASSEMBLY_MAX_CANDIDATES, { error: `candidates must have at most ${ASSEMBLY_MAX_CANDIDATES} items` });
