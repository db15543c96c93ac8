/**
 * The stable failure codes of a tool call. The tool core classifies every failure with one, the chat
 * loop and MCP send them to models and clients, the HTTP layer maps them to statuses and the web app
 * shows them; so the codes live at the bottom of the layer order (docs/architecture.md), as data only.
 */

/**
 * The stable failure codes of `executeTool`: clients and the HTTP status mapping switch on them, so a
 * code keeps its meaning once shipped.
 */
export type ToolErrorClassification =
  /** No tool is registered under the requested name. */
  | 'unknown_tool'
  /** The tool exists but the user's settings switch it off. */
  | 'tool_disabled'
  /** An argument from the model is missing, of the wrong type, or out of range. */
  | 'validation_failed'
  /** Path policy (allowed/denied paths, containment) or the OS refused access. */
  | 'permission_denied'
  /** The file, directory or resource named does not exist. */
  | 'not_found'
  /** The call's execution budget (`timeoutSeconds`, default 30 s) ran out. */
  | 'timeout'
  /** The caller (user cancel, stream teardown) aborted the call. */
  | 'cancelled'
  /** The call needed the user's approval and did not get it (denied, or unanswered in time). */
  | 'denied'
  /** The write needs more space than the workspace's disk quota leaves (or the disk is full). */
  | 'quota_exceeded'
  /** Anything else that went wrong while running the tool. */
  | 'execution_error';

export const TOOL_ERROR_CLASSIFICATIONS: readonly ToolErrorClassification[] = [
  'unknown_tool',
  'tool_disabled',
  'validation_failed',
  'permission_denied',
  'not_found',
  'timeout',
  'cancelled',
  'denied',
  'quota_exceeded',
  'execution_error',
];
