/**
 * Which tools may run concurrently within one model response (docs/chats.md, "The rules of the loop"). The
 * one list of read-only tools: they observe the filesystem or the clock and change nothing, so running them
 * side by side cannot change any call's outcome. Every other tool (shells, writes, image generation) runs one
 * after another, in the order the model asked for them.
 */

/** Tools that only read. Add a tool here only if it never changes anything outside its result. */
export const READ_ONLY_TOOL_NAMES: ReadonlySet<string> = new Set([
  'read_file',
  'list_directory',
  'glob',
  'grep',
  'get_current_datetime',
]);

export function isReadOnlyTool(name: string): boolean {
  return READ_ONLY_TOOL_NAMES.has(name);
}

/** True when every call of one model response may run at the same time. */
export function canRunConcurrently(calls: readonly { name: string }[]): boolean {
  return calls.every((call) => isReadOnlyTool(call.name));
}
