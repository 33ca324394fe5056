/**
 * The operations a model may call as tools: exactly the tools of the MCP endpoint, by the names issue 5
 * and issue 7 fixed (a test in packages/server checks the endpoint against this list), and the list any
 * agent tool catalog is built from. The decision model is a runtime step on the search and write paths,
 * never a tool: a model must not be able to drive reranking or write gating itself (seed 001).
 */
export interface ModelCallableTool {
  name: string;
  description: string;
  /** The tool only reads memory (the MCP `readOnlyHint`). */
  readOnly: boolean;
}

export const MODEL_CALLABLE_TOOLS: readonly ModelCallableTool[] = [
  { name: 'search_memory', description: 'Search a scope’s memory; returns cited hits.', readOnly: true },
  {
    name: 'prepare_context',
    description: 'Search a scope’s memory and pack the evidence into a framed context under a token budget.',
    readOnly: true,
  },
  { name: 'remember_memory', description: 'Add entries to a scope’s memory.', readOnly: false },
  {
    name: 'list_memory_entries',
    description: 'List the entries of a scope, page by page.',
    readOnly: true,
  },
  { name: 'get_memory_entry', description: 'Read one entry at a revision.', readOnly: true },
  {
    name: 'revise_memory_entry',
    description: 'Replace the text of an entry with a new version.',
    readOnly: false,
  },
  { name: 'forget_memory_entry', description: 'Mark an entry inactive.', readOnly: false },
  { name: 'reactivate_memory_entry', description: 'Make a forgotten entry active again.', readOnly: false },
  {
    name: 'purge_memory_entry',
    description: 'Erase every version of an entry for good (needs the purge permission).',
    readOnly: false,
  },
  {
    name: 'list_memory_changes',
    description: 'List the writes to a scope between two revisions, page by page.',
    readOnly: true,
  },
  {
    name: 'delete_scope',
    description: 'Delete a whole scope for good (needs the purge permission).',
    readOnly: false,
  },
  { name: 'list_scopes', description: 'The scopes the caller may use, and its permissions.', readOnly: true },
];
