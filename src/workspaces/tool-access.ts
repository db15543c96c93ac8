/**
 * The access part of a tool call's context, built from a reachable set in one place for every caller
 * (chat turns, MCP sessions, the CLI). The reachable set is what the tools layer decides on. The
 * legacy pair `workingDirectory`/`restricted` is derived from the same set for file tools that still
 * read it: a confined set gives `restricted: true` on its working directory, so such a tool is
 * contained exactly as the set says; remove the pair here once no tool reads it.
 */
import type { ReachableSet } from '../tools/access/reachable-set.ts';
import type { ToolCallContext } from '../tools/types.ts';

export type ToolAccessContext = Pick<ToolCallContext, 'workingDirectory' | 'restricted'> & {
  reachable: ReachableSet;
};

/** The context fields for a call that may reach `reachable` (`confined`: only its working directory). */
export function toolAccessContext(reachable: ReachableSet, confined: boolean): ToolAccessContext {
  return { reachable, workingDirectory: reachable.workingDirectory, restricted: confined };
}
