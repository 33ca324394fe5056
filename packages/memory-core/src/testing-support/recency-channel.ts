// The worked example of CONTRIBUTING.md, "Adding a channel": kept here so that the build type-checks it
// and adding-a-channel.test.ts runs it; that test fails when the page and this file differ.
import type { MemoryStore, SearchChannel } from '../index.js';

/** Entries written in the last `window` revisions, newest first: a channel of recency. */
export function createRecencyChannel(store: MemoryStore, window = 20): SearchChannel {
  return {
    name: 'recent',
    id: `example.channel.recent.v1(window=${window})`,
    needs: 'text',
    async search({ scopeId, revision, limit }) {
      // The versions written in (revision - window, revision], oldest first.
      const changes = await store.listChanges({
        scopeId,
        fromRevision: Math.max(0, revision - window),
        toRevision: revision,
        limit: 1_000,
      });
      const candidates = [];
      const seen = new Set<string>();
      // Newest first: an entry's first version met is the one live at the revision.
      for (const { revision: written, version } of changes.reverse()) {
        if (seen.has(version.entryId)) continue;
        seen.add(version.entryId);
        if (version.state !== 'active') continue; // forgotten at the revision
        const { entryId, entryVersionId } = version;
        candidates.push({ entryId, entryVersionId, rank: candidates.length + 1, score: written });
        if (candidates.length === limit) break;
      }
      return { candidates };
    },
  };
}
