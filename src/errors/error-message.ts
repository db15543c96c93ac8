/**
 * The message of anything thrown, for a sentence that reports it: an `Error`'s own message, anything
 * else as its string form, so a rejected non-error value is still reported rather than lost.
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
