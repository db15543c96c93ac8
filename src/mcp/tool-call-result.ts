/**
 * How an `executeTool` envelope becomes an MCP `CallToolResult`: pure, so the mapping is
 * pinned by a table test.
 *
 * - Success: the result as JSON text (a string result is passed through as is), and the same value as
 *   `structuredContent` when it is a plain object — MCP asks structured content to be an object and to
 *   be mirrored in a text block for clients that predate it. A result that says it was cut
 *   (`truncated: true`) is text only: cut data is not the shape a tool's `outputSchema` promises.
 * - Failure: `isError: true` with `{error: {classification, message}}` as text only. A tool failure is
 *   data the model corrects itself from, never a JSON-RPC error; it carries no structured content
 *   because clients validate that against the tool's `outputSchema` even when `isError` is set.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolExecutionResult } from '../tools/types.ts';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** JSON text of a value; values JSON cannot express (undefined, functions) read as `null`. */
function toJsonText(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/** Maps one `executeTool` envelope to the MCP result a client receives. */
export function toCallToolResult(envelope: ToolExecutionResult): CallToolResult {
  if (!envelope.ok) {
    const error = { classification: envelope.error.classification, message: envelope.error.message };
    return { content: [{ type: 'text', text: toJsonText({ error }) }], isError: true };
  }
  const { result } = envelope;
  const text = typeof result === 'string' ? result : toJsonText(result);
  // Structured content must be a JSON object; round-trip it so dates, class instances etc. arrive as
  // the same plain JSON the text block shows.
  const structured = isPlainObject(result) && result.truncated !== true;
  const structuredContent = structured ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  return structuredContent === undefined
    ? { content: [{ type: 'text', text }] }
    : { content: [{ type: 'text', text }], structuredContent };
}
