/**
 * How an `executeTool` envelope becomes an MCP `CallToolResult`: pure, so the mapping is pinned by a
 * table test. The text is kept under the same result budget a chat's turn loop applies, with the same
 * cut marker, so a tool's output reaches a model the same way through either door.
 *
 * - Success: the result as JSON text (a string result is passed through as is), and the same value as
 *   `structuredContent` when it is a plain object — MCP asks structured content to be an object and to
 *   be mirrored in a text block for clients that predate it. A result that says it was cut
 *   (`truncated: true`), or that the budget cut, is text only: cut data is not the shape a tool's
 *   `outputSchema` promises.
 * - Failure: `isError: true` with `{error: {classification, message}}` as text only. A tool failure is
 *   data the model corrects itself from, never a JSON-RPC error; it carries no structured content
 *   because clients validate that against the tool's `outputSchema` even when `isError` is set.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  DEFAULT_TOOL_OUTPUT_BUDGET_BYTES,
  envelopeText,
  truncateToByteBudget,
} from '../tools/output/result-budget.ts';
import type { ToolExecutionResult } from '../tools/types.ts';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * Maps one `executeTool` envelope to the MCP result a client receives, its text under the same result
 * budget as a chat's turn loop (`budgetBytes`, see `resultBudgetOf`).
 */
export function toCallToolResult(
  envelope: ToolExecutionResult,
  budgetBytes: number = DEFAULT_TOOL_OUTPUT_BUDGET_BYTES,
): CallToolResult {
  if (!envelope.ok) {
    const error = { classification: envelope.error.classification, message: envelope.error.message };
    const { text } = truncateToByteBudget(envelopeText({ ok: false, error }).text, budgetBytes);
    return { content: [{ type: 'text', text }], isError: true };
  }
  const { result } = envelope;
  const serialized = typeof result === 'string' ? { ok: true, text: result } : envelopeText(envelope);
  if (!serialized.ok) return { content: [{ type: 'text', text: serialized.text }], isError: true };
  const { text, truncated } = truncateToByteBudget(serialized.text, budgetBytes);
  // Structured content must be a JSON object; round-trip it so dates, class instances etc. arrive as
  // the same plain JSON the text block shows. Cut text is not the shape the outputSchema promises.
  const structured = !truncated && isPlainObject(result) && result.truncated !== true;
  const structuredContent = structured ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  return structuredContent === undefined
    ? { content: [{ type: 'text', text }] }
    : { content: [{ type: 'text', text }], structuredContent };
}
