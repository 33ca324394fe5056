import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

// Every agent loads the tools/list answer into its context at each start (RFC 0005, "Tool list
// size"), so the JSON Schemas the SDK generates from our zod schemas are sent without the keys that
// say nothing: `$schema`, and the subschemas that accept anything (`additionalProperties: {}`,
// `items: {}`, `properties: {}`, `propertyNames: {type: string}`, which every JSON object meets).
// Each removal leaves a schema that accepts exactly the same values; validation still runs on the zod
// schemas. `execution.taskSupport: "forbidden"` is the protocol's default, so it is left out too.

type Json = unknown;

function isEmptyObject(value: Json): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  );
}

function isStringSchema(value: Json): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === 1 &&
    (value as { type?: unknown }).type === 'string'
  );
}

/** The same JSON Schema without the keys that constrain nothing. */
export function compactSchema(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(compactSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const kept: Record<string, Json> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$schema') continue;
    if ((key === 'additionalProperties' || key === 'items' || key === 'properties') && isEmptyObject(value))
      continue;
    if (key === 'propertyNames' && isStringSchema(value)) continue;
    // Under `properties` the keys are field names, never keywords: keep every field.
    kept[key] =
      key === 'properties'
        ? Object.fromEntries(
            Object.entries(value as object).map(([name, field]) => [name, compactSchema(field)]),
          )
        : compactSchema(value);
  }
  return kept;
}

function compactTool(tool: Tool): Tool {
  const { execution, ...rest } = tool;
  return {
    ...rest,
    // Some clients read inputSchema.properties without checking it is there: it stays, even empty.
    inputSchema: { properties: {}, ...(compactSchema(tool.inputSchema) as object) } as Tool['inputSchema'],
    ...(tool.outputSchema ? { outputSchema: compactSchema(tool.outputSchema) as Tool['outputSchema'] } : {}),
    ...(execution && execution.taskSupport !== 'forbidden' ? { execution } : {}),
  };
}

/**
 * Makes `server` answer tools/list with compacted schemas. The SDK sets its tools/list handler when
 * the first tool is registered, so this must run before that: it wraps the handler as it is set.
 */
export function compactToolList(server: McpServer): void {
  type SetHandler = (schema: unknown, handler: (...args: unknown[]) => unknown) => void;
  const inner = server.server as unknown as { setRequestHandler: SetHandler };
  const set = inner.setRequestHandler.bind(inner) as SetHandler;
  inner.setRequestHandler = (schema, handler) =>
    set(
      schema,
      schema === ListToolsRequestSchema
        ? async (...args: unknown[]) => {
            const listed = (await handler(...args)) as { tools: Tool[] };
            return { ...listed, tools: listed.tools.map(compactTool) };
          }
        : handler,
    );
}
