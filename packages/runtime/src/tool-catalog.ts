/**
 * The operations a model may call as tools (the MCP endpoint and any agent tool catalog are built
 * from this list). The decision model is a runtime step on the search and write paths, never a tool:
 * a model must not be able to drive reranking or write gating itself (seed 001).
 */
export interface ModelCallableTool {
  name: string;
  description: string;
}

export const MODEL_CALLABLE_TOOLS: readonly ModelCallableTool[] = [
  { name: 'memory_search', description: 'Search a scope’s memory; returns cited hits.' },
  { name: 'memory_remember', description: 'Add entries to a scope’s memory.' },
  { name: 'memory_list', description: 'List the active entries of a scope, page by page.' },
  { name: 'memory_get', description: 'Read one entry at a revision.' },
  { name: 'memory_revise', description: 'Replace the text of an entry with a new version.' },
  { name: 'memory_forget', description: 'Mark an entry inactive.' },
  { name: 'memory_reactivate', description: 'Mark a forgotten entry active again.' },
  { name: 'memory_changes', description: 'List what changed between two revisions.' },
];
