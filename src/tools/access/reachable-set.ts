/**
 * The reachable set: the one answer to "what may a tool call touch?". It is computed once per call from
 * the caller's workspaces and the chat's binding, and every path decision reads it — file tools, walks,
 * the shell's working directory, the shell sandbox's mounts and MCP sessions. Nothing else grants access.
 *
 * - A user's workspaces (their personal workspace plus the directories an operator granted them) are the
 *   most any call of theirs can reach.
 * - A confined chat reaches only its working directory (with the access of the workspace it lies in);
 *   an unrestricted chat reaches all of its owner's workspaces.
 * - The protected set (the data directory, the installation directory, `/proc`, `/sys`, `/dev`, the
 *   directory holding every user's personal workspace) is never reachable, except the part of a
 *   protected directory that is itself a root: a user's personal workspace lies inside the workspaces
 *   directory, and that one subtree is theirs while its siblings stay out of reach.
 *
 * Every path here is absolute and already resolved (no symlinks, no `..`); callers resolve first. The
 * functions are pure.
 */
import { sep } from 'node:path';

export type Access = 'read-only' | 'read-write';

/** One directory a user may work in. */
export interface Workspace {
  /** Real absolute path. */
  path: string;
  access: Access;
  /** `personal`: the user's own workspace, created on first use; `granted`: an operator grant. */
  kind: 'personal' | 'granted';
  /**
   * The workspace's disk quota in bytes, when it is an image of its own (a personal workspace with a
   * quota): writes that would pass it are refused with the used figure and this limit.
   */
  diskQuotaBytes?: number;
}

export interface ReachableRoot {
  /** Real absolute path of a directory a call may reach, with everything below it. */
  path: string;
  access: Access;
  /** The disk quota of the workspace this root lies in (see `Workspace.diskQuotaBytes`). */
  diskQuotaBytes?: number;
}

/** The root of `workspace` at `path` (itself, or a directory inside it), with its quota when it has one. */
function rootIn(workspace: Workspace, path: string): ReachableRoot {
  return workspace.diskQuotaBytes === undefined
    ? { path, access: workspace.access }
    : { path, access: workspace.access, diskQuotaBytes: workspace.diskQuotaBytes };
}

export interface ReachableSet {
  /** Real absolute working directory: relative paths resolve here, and a shell starts here. */
  workingDirectory: string;
  /** Where `~` points in a tool argument: the user's personal workspace. */
  homeDirectory: string;
  /** What a call may reach; deepest root wins when roots nest. */
  roots: readonly ReachableRoot[];
  /** Never reachable, whatever the roots say (see the module comment for the one exception). */
  protectedPaths: readonly string[];
}

export interface ReachableSetInput {
  /** The user's workspaces, real paths. */
  workspaces: readonly Workspace[];
  /** Real path of the chat's working directory; must lie inside one of `workspaces`. */
  workingDirectory: string;
  /** The user's personal workspace (real path), where `~` points. */
  homeDirectory: string;
  /** True: the call reaches only `workingDirectory`; false: every workspace. */
  confined: boolean;
  protectedPaths: readonly string[];
}

/** True when `candidate` equals `directory` or lies below it, compared component-wise. */
export function isPathInside(candidate: string, directory: string): boolean {
  // No string is built: a walk asks this several times for each of thousands of candidates.
  if (!candidate.startsWith(directory)) return false;
  return (
    candidate.length === directory.length || directory.endsWith(sep) || candidate[directory.length] === sep
  );
}

/** The workspace holding `path` (deepest wins), or undefined. */
export function workspaceContaining(workspaces: readonly Workspace[], path: string): Workspace | undefined {
  let best: Workspace | undefined;
  for (const workspace of workspaces) {
    if (isPathInside(path, workspace.path) && (!best || workspace.path.length > best.path.length)) {
      best = workspace;
    }
  }
  return best;
}

/**
 * Everything the user's calls could reach at most: every workspace, with `~` and the working directory at
 * the personal workspace. Where a requested working directory must lie, and what a call's set is bound
 * from (`bindReachableSet`), so the workspaces are turned into roots once per call.
 */
export function computeUserReach(
  workspaces: readonly Workspace[],
  homeDirectory: string,
  protectedPaths: readonly string[],
): ReachableSet {
  return {
    workingDirectory: homeDirectory,
    homeDirectory,
    roots: workspaces.map((workspace) => rootIn(workspace, workspace.path)),
    protectedPaths: [...protectedPaths],
  };
}

/**
 * The reachable set of one call bound to `workingDirectory` (real), taken from the user's whole reach:
 * confined, only the working directory with the access (and quota) of the deepest root holding it;
 * otherwise every root. Throws when no root holds the working directory: the caller validated the
 * binding, so reaching this is a programming error, and failing closed is the only safe answer.
 */
export function bindReachableSet(
  reach: ReachableSet,
  workingDirectory: string,
  confined: boolean,
): ReachableSet {
  const home = rootContaining(reach, workingDirectory);
  if (!home) {
    throw new Error(
      `The working directory ${workingDirectory} lies outside every workspace of this user; no tool may run there.`,
    );
  }
  return {
    workingDirectory,
    homeDirectory: reach.homeDirectory,
    roots: confined ? [{ ...home, path: workingDirectory }] : reach.roots,
    protectedPaths: reach.protectedPaths,
  };
}

/** The reachable set of one call, from the user's workspaces (see `bindReachableSet`). */
export function computeReachableSet(input: ReachableSetInput): ReachableSet {
  const reach = computeUserReach(input.workspaces, input.homeDirectory, input.protectedPaths);
  return bindReachableSet(reach, input.workingDirectory, input.confined);
}

/**
 * Operator mode (`mango tool call` without `--user`): the whole filesystem read-write, still minus the
 * protected set. The operator already has a shell; this mode exists for trying tools out.
 */
export function computeOperatorReachableSet(
  workingDirectory: string,
  homeDirectory: string,
  protectedPaths: readonly string[],
): ReachableSet {
  return {
    workingDirectory,
    homeDirectory,
    roots: [{ path: sep, access: 'read-write' }],
    protectedPaths: [...protectedPaths],
  };
}

/** The deepest root holding `real`, or undefined. */
export function rootContaining(set: ReachableSet, real: string): ReachableRoot | undefined {
  let best: ReachableRoot | undefined;
  for (const root of set.roots) {
    if (isPathInside(real, root.path) && (!best || root.path.length > best.path.length)) best = root;
  }
  return best;
}

/**
 * The protected path that makes `real` unreachable, or undefined. A protected directory that contains
 * the root `real` lies in does not apply to it (the personal-workspace exception).
 */
export function protectedPathCovering(set: ReachableSet, real: string): string | undefined {
  const root = rootContaining(set, real);
  return set.protectedPaths.find(
    (path) => isPathInside(real, path) && (root === undefined || !isPathInside(root.path, path)),
  );
}

/** What a call may do at the real location `real`: its access, or undefined when it may not reach it. */
export function accessAt(set: ReachableSet, real: string): Access | undefined {
  const root = rootContaining(set, real);
  if (!root) return undefined;
  if (protectedPathCovering(set, real) !== undefined) return undefined;
  return root.access;
}
