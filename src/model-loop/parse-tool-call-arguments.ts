/**
 * Parses the raw JSON argument text a model produced for one tool call: "" → {} (a call with no arguments),
 * invalid JSON → a `validation_failed` result the model is told about, and the turn goes on. Whether the
 * parsed value is an object, and whether its keys fit the tool, is `executeTool`'s business.
 */
import type { ToolFailure } from '../contracts/tool-failure.ts';

export type ParsedToolCallArguments = { ok: true; value: unknown } | { ok: false; error: ToolFailure };

export function parseToolCallArguments(name: string, text: string): ParsedToolCallArguments {
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    const preview = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    return {
      ok: false,
      error: {
        classification: 'validation_failed',
        message:
          `The arguments of this "${name}" call are not valid JSON (${(error as Error).message}); the call ` +
          `was not run. Received: ${preview}. Send the arguments as one JSON object matching the tool's parameters.`,
      },
    };
  }
}
