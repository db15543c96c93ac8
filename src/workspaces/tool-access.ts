/**
 * The access part of a tool call's context, built from a reachable set in one place for every caller
 * (chat turns, MCP sessions, the CLI). The reachable set is all the tools layer decides on.
 */
import type { ReachableSet } from '../tools/access/reachable-set.ts';

export interface ToolAccessContext {
  reachable: ReachableSet;
}

/** The context fields for a call that may reach `reachable`. */
export function toolAccessContext(reachable: ReachableSet): ToolAccessContext {
  return { reachable };
}
