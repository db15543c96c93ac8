/**
 * Who sandboxed commands run as.
 *
 * - A server running as root gives each Mango user a uid and gid of their own from the sandbox range
 *   (sandbox-users.ts), plus the sandbox group and their reached grants' groups: the kernel, not only
 *   the mounts, keeps one tenant's processes and files from another's.
 * - A server that is not root cannot switch uid: every user's commands run as the server's own uid,
 *   as before per-user uids, and the start-up line says so.
 * - A root server without a store of per-user ids (an embedding that gave none) runs nothing: sharing
 *   one uid between tenants is what per-user uids exist to prevent, so it fails closed with the reason.
 *
 * The user name and home inside are the sandbox's own (its synthesized `/etc/passwd`,
 * sandbox-state-directory.ts); the uid is never 0.
 */
import { userInfo } from 'node:os';
import { ToolError } from '../tools/errors.ts';
import type { SandboxIdRange } from './sandbox-id-range.ts';
import type { SandboxUser, SandboxUsers } from './sandbox-users.ts';
import { firstUnmigratedRoot, unmigratedMessage } from './unmigrated-roots.ts';

export const SANDBOX_USER = 'sandbox';
export const SANDBOX_HOME = '/home/sandbox';

export interface SandboxIdentity {
  uid: number;
  gid: number;
  /** Supplementary groups, set by `setpriv` when the server is root; empty otherwise. */
  groups: readonly number[];
  user: string;
  /** The private home inside the sandbox. */
  home: string;
}

/** How a sandbox decides who runs each call. */
export type SandboxIdentities =
  | { kind: 'per-user'; users: SandboxUsers; range: SandboxIdRange }
  | { kind: 'server'; identity: SandboxIdentity }
  | { kind: 'unavailable'; reason: string };

function identityOf(user: SandboxUser): SandboxIdentity {
  return { uid: user.uid, gid: user.gid, groups: user.groups, user: SANDBOX_USER, home: SANDBOX_HOME };
}

/** The decision, from the server's own ids and the store of per-user ids (when there is one). */
export function decideSandboxIdentities(
  serverUid: number,
  serverGid: number,
  users: SandboxUsers | undefined,
): SandboxIdentities {
  if (serverUid !== 0) {
    return {
      kind: 'server',
      identity: { uid: serverUid, gid: serverGid, groups: [], user: SANDBOX_USER, home: SANDBOX_HOME },
    };
  }
  if (users === undefined) {
    return {
      kind: 'unavailable',
      reason:
        'the server runs as root but was given no store of per-user uids, and it does not run one tenant’s commands as another’s uid.',
    };
  }
  return { kind: 'per-user', users, range: users.range };
}

/** The identity of one call of `userId` reaching `roots`. */
export async function identityForCall(
  identities: Exclude<SandboxIdentities, { kind: 'unavailable' }>,
  userId: string,
  roots: readonly string[],
): Promise<SandboxIdentity> {
  if (identities.kind === 'server') return identities.identity;
  return identityOf(await identities.users.userFor(userId, roots));
}

/**
 * The identity the start-up probe runs as: the server's, or, per user, the range's base as uid and
 * gid (the sandbox group's id, which no user is ever given).
 */
export function probeIdentity(
  identities: Exclude<SandboxIdentities, { kind: 'unavailable' }>,
): SandboxIdentity {
  if (identities.kind === 'server') return identities.identity;
  const id = identities.range.base;
  return { uid: id, gid: id, groups: [id], user: SANDBOX_USER, home: SANDBOX_HOME };
}

/** Who runs calls, for the start-up line. */
export function describeWhoRuns(identities: SandboxIdentities): string {
  if (identities.kind === 'per-user') {
    return `a uid of their own for each user (from ${identities.range.base + 1}, dropped from root; sandbox group ${identities.range.base})`;
  }
  if (identities.kind === 'server') {
    return `uid ${identities.identity.uid} for every user (the server's own, ${userInfo().username}: only mounts keep users apart; run the server as root for a uid per user)`;
  }
  return identities.reason;
}

/** What a sandbox answers about who runs a call, and whose files the server hands over. */
export interface CallIdentities {
  /**
   * Who `userId`'s call reaching `roots` runs as. Throws a classified ToolError when it cannot run: no
   * store of ids, a full range, a root still owned by the uid of earlier versions (`legacyUid`).
   */
  identityFor(userId: string, roots?: readonly string[]): Promise<SandboxIdentity>;
  /** The owner of files the server creates for `userId`, or undefined when nothing is handed over. */
  fileOwner(userId: string): Promise<{ uid: number; gid: number } | undefined>;
  /** The sandbox group, when each user has a uid. */
  sandboxGroup(): number | undefined;
}

export function createCallIdentities(
  identities: SandboxIdentities,
  legacyUid: number | undefined,
): CallIdentities {
  const identityFor = async (userId: string, roots: readonly string[] = []): Promise<SandboxIdentity> => {
    if (identities.kind === 'unavailable') throw new ToolError('execution_error', identities.reason);
    if (identities.kind === 'per-user' && legacyUid !== undefined) {
      const unmigrated = firstUnmigratedRoot(roots, legacyUid);
      if (unmigrated !== undefined)
        throw new ToolError('execution_error', unmigratedMessage(unmigrated, legacyUid));
    }
    try {
      return await identityForCall(identities, userId, roots);
    } catch (error) {
      throw new ToolError(
        'execution_error',
        `The shell sandbox cannot run this user's commands: ${(error as Error).message}`,
      );
    }
  };
  return {
    identityFor,
    async fileOwner(userId) {
      // Only a uid per user needs files handed over; without a store of ids nothing runs at all.
      if (identities.kind !== 'per-user') return undefined;
      const identity = await identityFor(userId);
      return { uid: identity.uid, gid: identity.gid };
    },
    sandboxGroup: () => (identities.kind === 'per-user' ? identities.range.base : undefined),
  };
}
