import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { JsonValue } from '@powercontext/memory-core';
import type { ZodError } from 'zod';
import { ApiError } from '../http/api-error.js';
import { invalidMessage } from '../http/to-api-error.js';
import { validationIssues } from '../http/validation-issues.js';
import { type ToolError, toToolError } from './tool-error.js';

// How a tool call's result or failure is shaped (memory-tools.ts registers the tools).

/** The `_meta` key of a write result answered from its idempotency record (nothing written now). */
export const IDEMPOTENT_REPLAYED_META = 'powercontext/idempotent_replayed';

export function jsonResult(result: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
}

/**
 * A write tool's result: the HTTP route's body, exactly as first answered; a replay from the
 * idempotency record says so in `_meta` (the structured content stays the first answer).
 */
export function writeResult({
  wire,
  replayed,
}: {
  wire: Record<string, unknown>;
  replayed: boolean;
}): CallToolResult {
  return { ...jsonResult(wire), ...(replayed ? { _meta: { [IDEMPOTENT_REPLAYED_META]: true } } : {}) };
}

/** Tool arguments are parsed JSON, so an object among them is a JSON object. */
export function jsonObject(value: Record<string, unknown>): Record<string, JsonValue> {
  return value as Record<string, JsonValue>;
}

export function errorResult(error: ToolError): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify({ error }) }], isError: true };
}

const INVALID_INPUT = Symbol('invalid tool input');
type InvalidInput = { [INVALID_INPUT]: ToolError };

function isInvalidInput(value: unknown): value is InvalidInput {
  return typeof value === 'object' && value !== null && INVALID_INPUT in value;
}

/** The ToolError of arguments that break a tool's input schema: invalid_request naming each field. */
export function invalidInputError(error: ZodError): ToolError {
  const issues = validationIssues(error);
  return toToolError(new ApiError('invalid_request', invalidMessage(issues), { details: { issues } }));
}

/**
 * One error shape for every tool failure. The SDK validates arguments against the tool's input
 * schema itself and answers a failure with a bare text result ("Input validation error: ..."); here
 * the same schema validates them and a failure becomes the `invalid_request` ToolError that every
 * other rule answers with. The SDK keeps `validateToolInput` private, so this replaces it on the
 * instance and fails loudly at start-up if a new SDK version no longer has it (the MCP tests pin the
 * behaviour).
 */
export function acceptEveryInputAsToolError(server: McpServer): void {
  type Validate = (tool: { inputSchema?: unknown }, args: unknown, name: string) => Promise<unknown>;
  const sdk = server as unknown as { validateToolInput?: Validate; registerTool: McpServer['registerTool'] };
  if (typeof sdk.validateToolInput !== 'function') {
    throw new Error(
      '@modelcontextprotocol/sdk no longer has McpServer.validateToolInput: revisit memory-tools.ts',
    );
  }
  sdk.validateToolInput = async (tool, args) => {
    const schema = tool.inputSchema as
      | { safeParseAsync(value: unknown): Promise<{ success: boolean; data?: unknown; error?: ZodError }> }
      | undefined;
    if (!schema) return undefined;
    const parsed = await schema.safeParseAsync(args ?? {});
    return parsed.success ? parsed.data : { [INVALID_INPUT]: invalidInputError(parsed.error!) };
  };
  const register = server.registerTool.bind(server) as (...args: unknown[]) => unknown;
  sdk.registerTool = ((name: string, config: unknown, handler: (input: unknown, extra: unknown) => unknown) =>
    register(name, config, (input: unknown, extra: unknown) =>
      isInvalidInput(input) ? errorResult(input[INVALID_INPUT]) : handler(input, extra),
    )) as unknown as McpServer['registerTool'];
}
