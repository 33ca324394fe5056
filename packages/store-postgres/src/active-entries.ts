/**
 * Active entries per (scope, revision), as read with the statistics: a fact about a revision that
 * never changes, so it cannot go stale. It lets a vector search choose exact or HNSW without a probe.
 * A purge rewrites older revisions too, so it forgets every count of its scope.
 */
export class ActiveEntryCounts {
  readonly #counts = new Map<string, number>();

  /** Active entries at the revision, if a statistics read told them (no read here). */
  known(scopeId: string, revision: number): number | undefined {
    return this.#counts.get(`${revision}:${scopeId}`);
  }

  remember(scopeId: string, revision: number, activeEntries: number) {
    if (this.#counts.size >= 4_096) this.#counts.clear();
    this.#counts.set(`${revision}:${scopeId}`, activeEntries);
  }

  forgetScope(scopeId: string) {
    for (const key of this.#counts.keys()) {
      if (key.endsWith(`:${scopeId}`)) this.#counts.delete(key);
    }
  }
}
