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
import type { SandboxIdRange } from './sandbox-id-range.ts';
import type { SandboxUser, SandboxUsers } from './sandbox-users.ts';

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
