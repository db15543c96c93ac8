/**
 * The reachable set of a caller that knows only a directory binding: an optional working directory and
 * whether the call is confined to it. Chat, MCP and CLI callers that do not yet track workspaces build
 * their set here, so the one mapping from a binding to a set lives in one place:
 * - confined: only the working directory, read-write;
 * - not confined: the whole filesystem (operator reach), still minus the protected set.
 * A call without a working directory gets `fallbackWorkingDirectory` as its working directory: the
 * caller states it, the tools layer never guesses one.
 */
import { computeProtectedPaths, realOrAbsolute } from './protected-paths.ts';
import { computeOperatorReachableSet, computeReachableSet, type ReachableSet } from './reachable-set.ts';

export interface DirectoryBinding {
  /** The bound working directory (absolute); undefined when none is bound. */
  workingDirectory?: string;
  /** True: the call reaches only `workingDirectory`. */
  confined: boolean;
  /** The working directory of a call with none bound. */
  fallbackWorkingDirectory: string;
  /** Where `~` points. */
  homeDirectory: string;
  /** The server's data directory, part of the protected set. */
  dataDirectory?: string;
}

export function computeBindingReachableSet(binding: DirectoryBinding): ReachableSet {
  const workingDirectory = realOrAbsolute(binding.workingDirectory ?? binding.fallbackWorkingDirectory);
  const homeDirectory = realOrAbsolute(binding.homeDirectory);
  const protectedPaths = computeProtectedPaths({ dataDirectory: binding.dataDirectory });
  if (binding.confined) {
    if (binding.workingDirectory === undefined) {
      throw new Error('A confined call needs a working directory to be confined to; no tool may run.');
    }
    return computeReachableSet({
      workspaces: [{ path: workingDirectory, access: 'read-write', kind: 'granted' }],
      workingDirectory,
      homeDirectory,
      confined: true,
      protectedPaths,
    });
  }
  return computeOperatorReachableSet(workingDirectory, homeDirectory, protectedPaths);
}
