/**
 * How a tool's outcome reaches the model (docs/tools.md, "How every call runs"): the `executeTool` envelope
 * serialized to JSON text — the result itself on success, `{"error": {classification, message}}` on
 * failure — and kept under a byte budget (default 100 KiB). A larger output is cut at a UTF-8 boundary
 * and ends with one marker that says how big it was and how to ask for less; this module is the only
 * place that words that marker.
 */
import type { ToolExecutionResult } from '../tools/types.ts';

/** Default budget of one serialized tool result, in UTF-8 bytes. */
export const DEFAULT_TOOL_OUTPUT_BUDGET_BYTES = 100 * 1024;

export interface SerializedToolOutput {
  /** False when the tool failed, or its result could not be serialized. */
  ok: boolean;
  /** The text the model receives, at most the budget in UTF-8 bytes. */
  output: string;
  truncated: boolean;
}

export interface TruncatedText {
  text: string;
  truncated: boolean;
}

function truncationMarker(originalBytes: number, keptBytes: number, budgetBytes: number): string {
  return (
    `\n[truncated: this tool result is ${originalBytes} bytes, over the ${budgetBytes}-byte limit for one ` +
    `result; only the first ${keptBytes} bytes are shown above. Ask for less: a narrower path, pattern or ` +
    'glob, a lower maxResults or maxLines, or a startLine to continue where this stops.]'
  );
}

/**
 * Returns `text` unchanged when it fits `budgetBytes` (UTF-8), otherwise its longest prefix that ends on
 * a character boundary and, together with the truncation marker, fits the budget.
 */
export function truncateToByteBudget(text: string, budgetBytes: number): TruncatedText {
  // A UTF-16 code unit never takes more than 3 UTF-8 bytes: most results skip the byte count.
  if (text.length * 3 <= budgetBytes) return { text, truncated: false };
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= budgetBytes) return { text, truncated: false };
  const markerAllowance = Buffer.byteLength(truncationMarker(bytes.length, budgetBytes, budgetBytes));
  let kept = Math.max(0, budgetBytes - markerAllowance);
  // Step back over UTF-8 continuation bytes (10xxxxxx) so no character is split.
  while (kept > 0 && ((bytes[kept] ?? 0) & 0xc0) === 0x80) kept -= 1;
  const prefix = bytes.subarray(0, kept).toString('utf8');
  return { text: prefix + truncationMarker(bytes.length, kept, budgetBytes), truncated: true };
}

function stringify(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/** Serializes an `executeTool` envelope for the model under `budgetBytes`. Never throws. */
export function serializeToolOutput(
  envelope: ToolExecutionResult,
  budgetBytes: number = DEFAULT_TOOL_OUTPUT_BUDGET_BYTES,
): SerializedToolOutput {
  let ok = envelope.ok;
  let text: string;
  try {
    text = envelope.ok ? stringify(envelope.result) : stringify({ error: envelope.error });
  } catch (error) {
    ok = false;
    text = stringify({
      error: {
        classification: 'execution_error',
        message: `The tool's result could not be serialized to JSON: ${(error as Error).message}`,
      },
    });
  }
  const { text: output, truncated } = truncateToByteBudget(text, budgetBytes);
  return { ok, output, truncated };
}
