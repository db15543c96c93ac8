/**
 * What a long-running tool reports while it runs. The tool core passes it to the caller, turn events
 * carry it to clients (`tool_progress`) and MCP forwards it as a notification, so it sits at the
 * bottom of the layer order (docs/architecture.md).
 */

/** A progress event a long-running tool streams while it runs (e.g. one per generated image). */
export interface ToolProgressEvent {
  type: string;
  [field: string]: unknown;
}
