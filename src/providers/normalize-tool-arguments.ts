/**
 * A tool call's argument text as every adapter reads it: "no arguments" normalized to `{}`, and the
 * text as an object for the APIs whose history carries objects rather than text.
 */

/** Arguments as the model produced them, with "no arguments" (`""`, whitespace) normalized to `"{}"`. */
export function normalizeToolArguments(raw: string | undefined | null): string {
  if (raw === undefined || raw === null || raw.trim() === '') return '{}';
  return raw;
}

/**
 * Arguments text as a JSON object for providers whose history carries objects (Anthropic `input`,
 * Gemini `arguments`). Text that is not a JSON object (the model sent invalid JSON, which the loop
 * answered with `validation_failed`) is replayed as `{}`: the provider refuses anything else, and the
 * tool result that follows tells the model what went wrong.
 */
export function parseArgumentsObject(argumentsText: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(argumentsText);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
      return parsed as Record<string, unknown>;
    }
  } catch {
    // fall through: invalid JSON
  }
  return {};
}
