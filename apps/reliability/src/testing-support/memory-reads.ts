import type { ChangesResponse, EntryChange, EntryVersion, ListEntriesResponse } from '@powercontext/client';
import { send } from './http.js';

type Change = ChangesResponse['changes'][number];

/** Every page of a paginated read, or an Error naming the failed page. */
async function allPages<Page extends { next_cursor?: string }>(
  url: string,
  path: string,
  body: Record<string, unknown>,
  key: string | undefined,
): Promise<Page[]> {
  const pages: Page[] = [];
  let cursor: string | undefined;
  do {
    const response = await send<Page>(url, path, {
      body: { ...body, limit: 200, ...(cursor ? { cursor } : {}) },
      ...(key ? { key } : {}),
    });
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${response.text}`);
    pages.push(response.json);
    cursor = response.json.next_cursor;
  } while (cursor);
  return pages;
}

/**
 * All entries of a scope at its head (active and inactive), read page by page at one revision; with
 * `minRevision`, at that revision or later (a read replica waits, or the primary answers).
 */
export async function listAll(
  url: string,
  scopeId: string,
  key?: string,
  minRevision?: number,
): Promise<EntryVersion[]> {
  const pages = await allPages<ListEntriesResponse>(
    url,
    '/v1/memory/entries/list',
    { scope_id: scopeId, state: 'all', ...(minRevision === undefined ? {} : { min_revision: minRevision }) },
    key,
  );
  const revisions = new Set(pages.map((page) => page.memory?.revision));
  if (revisions.size > 1) throw new Error(`list pages read at several revisions: ${[...revisions].join()}`);
  return pages.flatMap((page) => page.entries);
}

/** Every change of a scope from revision 0 to its head, oldest first. */
export async function changesAll(url: string, scopeId: string, key?: string): Promise<EntryChange[]> {
  const pages = await allPages<ChangesResponse>(url, '/v1/memory/changes', { scope_id: scopeId }, key);
  // The scenarios never purge, so every change carries its entry version.
  return pages.flatMap((page) =>
    page.changes.map((change: Change) => {
      if ('purged' in change) throw new Error(`unexpected purged change at revision ${change.revision}`);
      return change;
    }),
  );
}

/** Problems with a revision chain: revisions must be 1..head with no gap, each with at least one change. */
export function chainProblems(changes: readonly Change[], head: number): string[] {
  const seen = new Set(changes.map((change) => change.revision));
  const problems: string[] = [];
  for (let revision = 1; revision <= head; revision += 1) {
    if (!seen.has(revision)) problems.push(`revision ${revision} has no change`);
  }
  for (const revision of seen)
    if (revision < 1 || revision > head) problems.push(`revision ${revision} outside 1..${head}`);
  return problems;
}
