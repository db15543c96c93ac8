/**
 * The renderings the web app has for a tool's result. A tool declares one as a trait, the settings API
 * reports it and the web app switches on it, so the list sits at the bottom of the layer order
 * (docs/architecture.md), as a constant table.
 */

/** How the web app renders a tool's result; `json` is the generic view every result falls back to. */
export const TOOL_RESULT_VIEWS = [
  'json',
  'file_content',
  'search_matches',
  'command_output',
  'images',
] as const;
export type ToolResultView = (typeof TOOL_RESULT_VIEWS)[number];
