import { z } from 'zod';

/** Exact reference to one revision of a scope's Memory artifact. */
export interface MemoryRef {
  artifactId: string;
  scopeId: string;
  revision: number;
}

/**
 * Exact evidence identity: artifact, revision, entry and entry version. A search hit's citation also
 * names its scope (`scopeId`); resolving it in another scope is refused, so hits of two scopes never
 * stand for each other even if their entry ids were equal.
 */
export interface Citation {
  scopeId?: string;
  artifactId: string;
  revision: number;
  entryId: string;
  entryVersionId: string;
}

export const citationSchema = z.strictObject({
  scopeId: z.string({ error: 'scopeId must be a string' }).optional(),
  artifactId: z.uuid({ error: 'artifactId must be a UUID' }),
  revision: z.int({ error: 'revision must be an integer' }).min(1, { error: 'revision must be at least 1' }),
  entryId: z.uuid({ error: 'entryId must be a UUID' }),
  entryVersionId: z.uuid({ error: 'entryVersionId must be a UUID' }),
});
