import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { ToolError } from './tool-error.js';

/** Calls a tool that must succeed; returns its structured content parsed with the tool's output schema. */
export async function callOk<Schema extends z.ZodType>(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  schema: Schema,
): Promise<z.output<Schema>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  // The text block carries the same JSON as the structured content, for clients that read only text.
  const block = result.content[0];
  const text = block?.type === 'text' ? block.text : '';
  if (text !== JSON.stringify(result.structuredContent))
    throw new Error(`${name}: text and structured content differ`);
  return schema.parse(result.structuredContent);
}

/** Calls a tool that must fail and returns the isError result's text. */
export async function callFailing(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!result.isError) throw new Error(`${name} succeeded: ${JSON.stringify(result.structuredContent)}`);
  if (result.structuredContent !== undefined)
    throw new Error(`${name}: an error result has structured content`);
  const block = result.content[0];
  return block?.type === 'text' ? block.text : '';
}

/** Calls a tool that must fail with one of our ToolErrors and returns it. */
export async function callError(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolError> {
  return (JSON.parse(await callFailing(client, name, args)) as { error: ToolError }).error;
}
