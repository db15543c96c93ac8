/**
 * One line that says what a tool call would do, for a person asked to approve it (`mango chat`'s y/N
 * prompt, an MCP elicitation): the command of a shell call, the path of a file call, otherwise the
 * arguments as JSON. Control characters are shown escaped so a crafted argument cannot redraw the
 * terminal or hide part of the line; a long line is cut with an ellipsis, saying so.
 */

/** Longest summary shown. */
export const MAX_CALL_SUMMARY_CHARACTERS = 300;

function cut(text: string): string {
  return text.length > MAX_CALL_SUMMARY_CHARACTERS
    ? `${text.slice(0, MAX_CALL_SUMMARY_CHARACTERS)}… (cut, ${text.length} characters)`
    : text;
}

/** The text with every control character (newline, escape) shown as its JSON escape. */
function visible(text: string): string {
  return cut(JSON.stringify(text).slice(1, -1).replaceAll('\\"', '"'));
}

export function summarizeToolCall(args: Readonly<Record<string, unknown>>): string {
  if (typeof args.command === 'string') return visible(args.command);
  if (typeof args.path === 'string') return visible(args.path);
  // JSON text already shows control characters escaped.
  return cut(JSON.stringify(args));
}
