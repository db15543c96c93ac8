/** Test helper for the guarded fetch tests. */
import { ToolError } from '../../src/tools/errors.ts';

/** What a fetch ended in: the status and body text, or the classification and message of its refusal. */
export async function outcomeOf(promise: Promise<Response>): Promise<string> {
  try {
    const response = await promise;
    return `${response.status} ${await response.text()}`;
  } catch (error) {
    if (ToolError.isInstance(error)) return `${error.classification}: ${error.message}`;
    return `error: ${(error as Error).message}`;
  }
}
