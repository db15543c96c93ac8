/**
 * The access policy of one tool call: the single place a tools-layer path decision is taken. It is built
 * once per call (the settings' path lists resolved once) and then answers synchronously, so a walk checks
 * thousands of candidates without a system call each.
 *
 * A location (always a real one: symlinks resolved) is allowed when, in this order:
 * 1. it is not in the protected set (the server's own files: refused with a sentence saying so, and one
 *    structured log line, see access-log.ts; the user's own personal workspace, which lies inside the
 *    protected workspaces directory, is refused as merely out of reach when a chat is confined elsewhere);
 * 2. the reachable set holds it (see reachable-set.ts), with `read-write` access when the call writes;
 * 3. no enabled `deniedPaths` entry contains it (matched on the real and on the lexical location, so a
 *    denied directory cannot be reached under another spelling either);
 * 4. when `allowedPaths` has enabled entries, one of them contains it.
 * The settings' lists can only narrow what the reachable set grants, never widen it.
 */
import { getEnabledPathListSetting } from '../arg-parsing.ts';
import { ToolPermissionError } from '../errors.ts';
import type { ToolContext } from '../types.ts';
import { logProtectedPathRefusal } from './access-log.ts';
import { type LocationResolver, locationResolverFor } from './location-resolution.ts';
import { ProtectedPathRefusedError } from './protected-path-refused-error.ts';
import { isPathInside, protectedPathCovering, type ReachableSet, rootContaining } from './reachable-set.ts';
import { expandToolPath } from './tool-path-syntax.ts';

/** What a call does at a location: reading (and listing) needs any access, writing needs `read-write`. */
export type AccessNeed = 'read' | 'write';

export interface AccessRefusal {
  message: string;
  /** Set when the location belongs to the server: the protected path covering it. */
  protectedPath?: string;
}

export interface AccessPolicy {
  readonly reachable: ReachableSet;
  /**
   * Why `real` is refused for `need`, or undefined when it is allowed. `shown` is how the message names
   * the path (the model's own spelling); `absolute` is its lexical location, matched against deny entries.
   */
  refusalFor(real: string, need: AccessNeed, shown: string, absolute?: string): AccessRefusal | undefined;
  /** Throws the refusal as a ToolPermissionError, logging it when the path belongs to the server. */
  require(real: string, need: AccessNeed, shown: string, absolute?: string): void;
  /** Whether a walk may report (and read) the real location `real`: the synchronous per-candidate check. */
  admits(real: string): boolean;
  /**
   * Whether `admits` holds for every location below the real directory `real`, so a walk of it need
   * not ask candidate by candidate (about a microsecond each, a tenth of a walk): the policy admits
   * `real`, no protected path lies below it, and the call names no `allowedPaths` or `deniedPaths`.
   * Then every rule decides a descendant as it decides `real` (inside a root, under the same protected
   * path or none), decided lexically once.
   */
  admitsEveryDescendant(real: string): boolean;
  /** The enabled `deniedPaths` entries as real locations: what a shell sandbox covers. */
  readonly deniedLocations: readonly string[];
}

export interface ResolvedPathListEntry {
  /** As written in the settings. */
  setting: string;
  absolute: string;
  real: string;
}

/**
 * A path list setting's entries at their lexical and real locations (the rules `allowedPaths` and
 * `deniedPaths` are decided by; `autoApprovedPaths` uses the same), resolved by `resolve`: where the
 * call's file work runs (location-resolution.ts), never by the server in a tenant's tree.
 */
export async function resolvePathListEntries(
  settings: string[],
  reachable: ReachableSet,
  resolve: LocationResolver,
): Promise<ResolvedPathListEntry[]> {
  return Promise.all(
    settings.map(async (setting) => {
      const absolute = expandToolPath(setting, reachable);
      let real = absolute;
      try {
        real = (await resolve(absolute)).real;
      } catch {
        // An unresolvable entry (loop, unreadable) still matches lexically.
      }
      return { setting, absolute, real };
    }),
  );
}

function describeLocation(shown: string, location: string): string {
  return shown === location ? JSON.stringify(shown) : `${JSON.stringify(shown)} (resolved to ${location})`;
}

/** What a call may reach, in words, for refusals of locations outside it. */
export function describeReach(reachable: ReachableSet): string {
  if (reachable.roots.length === 0) return 'nothing';
  return `only ${reachable.roots.map((root) => `${root.path} (${root.access})`).join(', ')}`;
}

/** Builds the policy of a call from its reachable set and `context.settings.parameters`. */
export async function createAccessPolicy(context: ToolContext): Promise<AccessPolicy> {
  const reachable = context.reachable;
  const parameters = context.settings.parameters;
  const resolve = locationResolverFor(context);
  const [allowed, denied] = await Promise.all([
    resolvePathListEntries(getEnabledPathListSetting(parameters, 'allowedPaths'), reachable, resolve),
    resolvePathListEntries(getEnabledPathListSetting(parameters, 'deniedPaths'), reachable, resolve),
  ]);

  const refusalFor = (
    real: string,
    need: AccessNeed,
    shown: string,
    absolute?: string,
  ): AccessRefusal | undefined => {
    // Built only for a refusal: a walk asks about thousands of allowed candidates.
    const where = () => describeLocation(shown, real);
    const protectedPath = protectedPathCovering(reachable, real);
    // The user's own personal workspace lies inside the protected workspaces directory: outside a
    // confined chat's directory it is out of reach, but it is theirs, not the server's.
    const ownWorkspace =
      protectedPath !== undefined &&
      isPathInside(real, reachable.homeDirectory) &&
      reachable.homeDirectory !== protectedPath &&
      isPathInside(reachable.homeDirectory, protectedPath);
    if (protectedPath !== undefined && !ownWorkspace) {
      return {
        message: `Access to ${where()} is denied: it belongs to the server, and the server's files are never reachable from a tool.`,
        protectedPath,
      };
    }
    const root = rootContaining(reachable, real);
    if (root === undefined) {
      return {
        message: `Access to ${where()} is denied: it lies outside what this chat can reach, which is ${describeReach(reachable)}.`,
      };
    }
    if (need === 'write' && root.access !== 'read-write') {
      return {
        message: `Cannot write ${where()}: it lies in ${root.path}, which this chat may only read (read-only).`,
      };
    }
    const deniedBy = denied.find(
      (entry) =>
        isPathInside(real, entry.real) || (absolute !== undefined && isPathInside(absolute, entry.absolute)),
    );
    if (deniedBy) {
      return {
        message: `Access to ${where()} is denied: it is inside the denied path ${JSON.stringify(deniedBy.setting)} (deniedPaths setting).`,
      };
    }
    if (allowed.length > 0 && !allowed.some((entry) => isPathInside(real, entry.real))) {
      const list = allowed.map((entry) => JSON.stringify(entry.setting)).join(', ');
      return {
        message: `Access to ${where()} is denied: it is outside the allowed paths (allowedPaths setting: ${list}).`,
      };
    }
    return undefined;
  };

  return {
    reachable,
    refusalFor,
    require(real, need, shown, absolute) {
      const refusal = refusalFor(real, need, shown, absolute);
      if (refusal === undefined) return;
      if (refusal.protectedPath !== undefined) {
        const location = { path: shown, real, protectedPath: refusal.protectedPath };
        logProtectedPathRefusal({
          userId: context.userId,
          chatId: context.chatId,
          ...location,
          at: context.now(),
        });
        throw new ProtectedPathRefusedError(refusal.message, location);
      }
      throw new ToolPermissionError(refusal.message);
    },
    admits(real) {
      return refusalFor(real, 'read', real) === undefined;
    },
    admitsEveryDescendant(real) {
      return (
        allowed.length === 0 &&
        denied.length === 0 &&
        refusalFor(real, 'read', real) === undefined &&
        !reachable.protectedPaths.some((path) => path !== real && isPathInside(path, real))
      );
    },
    deniedLocations: denied.map((entry) => entry.real),
  };
}

const policies = new WeakMap<ToolContext, Promise<AccessPolicy>>();

/** The policy of a call, built once per context and shared by every check the call makes. */
export function getAccessPolicy(context: ToolContext): Promise<AccessPolicy> {
  let policy = policies.get(context);
  if (!policy) {
    policy = createAccessPolicy(context);
    policies.set(context, policy);
  }
  return policy;
}
