/**
 * The result budget: how a tool's outcome reaches a model, in a chat's turn loop and over MCP alike.
 * The `executeTool` envelope is serialized to JSON text (the result itself on success,
 * `{"error": {classification, message}}` on failure) and kept under a byte budget (default 100 KiB, or
 * the tool's own `resultBudgetBytes` when larger). A larger output is cut at a UTF-8 boundary and ends
 * with one cut marker saying how big it was and how to ask for less, the whole within the budget.
 */
import type { RegisteredTool, ToolExecutionResult } from '../types.ts';
import { resultBudgetMarker } from './cut-notices.ts';
import { capUtf8Bytes } from './utf8-cap.ts';

/** Default budget of one serialized tool result, in UTF-8 bytes. */
export const DEFAULT_TOOL_OUTPUT_BUDGET_BYTES = 100 * 1024;

/** The budget of one call's result: the caller's base, raised to the tool's own budget when larger. */
export function resultBudgetOf(
  tool: Pick<RegisteredTool, 'resultBudgetBytes'> | undefined,
  baseBytes: number = DEFAULT_TOOL_OUTPUT_BUDGET_BYTES,
): number {
  return Math.max(baseBytes, tool?.resultBudgetBytes ?? 0);
}

export interface TruncatedText {
  text: string;
  truncated: boolean;
}

/**
 * Returns `text` unchanged when it fits `budgetBytes` (UTF-8), otherwise its longest whole-character
 * prefix that, together with the cut marker, fits the budget.
 */
export function truncateToByteBudget(text: string, budgetBytes: number): TruncatedText {
  const whole = capUtf8Bytes(text, budgetBytes);
  if (!whole.cut) return { text, truncated: false };
  // The marker's own length depends on the kept count; the budget is an upper bound for that count.
  const markerAllowance = Buffer.byteLength(resultBudgetMarker(whole.totalBytes, budgetBytes, budgetBytes));
  const kept = capUtf8Bytes(text, Math.max(0, budgetBytes - markerAllowance));
  return {
    text: kept.text + resultBudgetMarker(whole.totalBytes, kept.keptBytes, budgetBytes),
    truncated: true,
  };
}

export interface SerializedToolOutput {
  /** False when the tool failed, or its result could not be serialized. */
  ok: boolean;
  /** The text the model receives, at most the budget in UTF-8 bytes. */
  output: string;
  truncated: boolean;
}

function stringify(value: unknown): string {
  return JSON.stringify(value) ?? 'null';
}

/** The JSON text of an envelope, before any budget. Never throws. */
export function envelopeText(envelope: ToolExecutionResult): { ok: boolean; text: string } {
  try {
    return {
      ok: envelope.ok,
      text: envelope.ok ? stringify(envelope.result) : stringify({ error: envelope.error }),
    };
  } catch (error) {
    return {
      ok: false,
      text: stringify({
        error: {
          classification: 'execution_error',
          message: `The tool's result could not be serialized to JSON: ${(error as Error).message}`,
        },
      }),
    };
  }
}

/** Serializes an `executeTool` envelope for the model under `budgetBytes`. Never throws. */
export function serializeToolOutput(
  envelope: ToolExecutionResult,
  budgetBytes: number = DEFAULT_TOOL_OUTPUT_BUDGET_BYTES,
): SerializedToolOutput {
  const { ok, text } = envelopeText(envelope);
  const { text: output, truncated } = truncateToByteBudget(text, budgetBytes);
  return { ok, output, truncated };
}
