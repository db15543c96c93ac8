/**
 * The one marker format for output a tool, the turn loop or MCP cut: `[cut: <what was cut>; <how to get
 * the rest>]`. Every cap in Mango words its marker through {@link cutMarker}, so a model (and a test)
 * recognises a cut by one shape, and every marker says both what is missing and how to ask for it.
 * Wording: [How output is cut](../../../docs/tools.md#how-output-is-cut).
 */

/** Matches one cut marker: `[cut: what; rest]` (neither part holds `;` or `]` before its end). */
export const CUT_MARKER_PATTERN = /\[cut: [^;\]]+; [^\]]+\]/;

/**
 * The marker for one cut. `what` states what was left out (sizes, the cap); `rest` the tool-specific way
 * to get it ("to read on, call read_file with startLine 2001").
 * @throws TypeError when a part is empty or holds `;`/`]` where the format puts its separators, so a
 *   marker that readers could not parse is never emitted.
 */
export function cutMarker(what: string, rest: string): string {
  if (what.length === 0 || what.includes(';') || what.includes(']')) {
    throw new TypeError(
      `A cut marker's "what" must be non-empty without ";" or "]"; got ${JSON.stringify(what)}.`,
    );
  }
  if (rest.length === 0 || rest.includes(']')) {
    throw new TypeError(`A cut marker's "rest" must be non-empty without "]"; got ${JSON.stringify(rest)}.`);
  }
  return `[cut: ${what}; ${rest}]`;
}
