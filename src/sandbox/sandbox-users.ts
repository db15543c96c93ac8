/**
 * Who one user's sandboxed processes are, when the server is root: their own uid and gid from the
 * sandbox range (allocated on first use, kept in the database for good), the sandbox group (the
 * range's base: it passes the workspaces directory) and the group of every granted directory the call
 * reaches that has one. Ids never change once given, so each is looked up in the database once per
 * process; a grant without a group is asked for again, since `mango workspace grant` may give it one
 * while the server runs.
 */
import { MangoError } from '../errors/mango-error.ts';
import type { SandboxIdRange } from './sandbox-id-range.ts';
import { inSandboxIdRange } from './sandbox-id-range.ts';
import type { SandboxIdRepository } from './sandbox-id-repository.ts';

/** The credentials of one user's sandboxed processes. */
export interface SandboxUser {
  uid: number;
  gid: number;
  /** Supplementary groups: the sandbox group first, then the reached grants' groups. */
  groups: readonly number[];
}

export interface SandboxUsers {
  readonly range: SandboxIdRange;
  /**
   * The credentials `userId`'s processes get in a sandbox showing `roots` (real paths).
   * @throws SandboxIdRangeFullError when the user has no id and none is left.
   */
  userFor(userId: string, roots: readonly string[]): Promise<SandboxUser>;
}

export interface SandboxUsersOptions {
  repository: SandboxIdRepository;
  range: SandboxIdRange;
  now?: () => number;
}

/** Thrown when a stored id lies outside the configured range (the operator moved the range). */
export class SandboxIdOutsideRangeError extends MangoError {
  override name = 'SandboxIdOutsideRangeError';
  constructor(message: string, options?: ErrorOptions) {
    super('sandbox_id_outside_range', message, options);
  }
}

/**
 * `id`, given to `what` ("The user …"), when it lies in `range`.
 * @throws SandboxIdOutsideRangeError naming the variables to set back.
 */
export function checkedSandboxId(range: SandboxIdRange, id: number, what: string): number {
  if (!inSandboxIdRange(range, id)) {
    throw new SandboxIdOutsideRangeError(
      `${what} has id ${id}, outside the sandbox range ${range.base}–${range.base + range.count - 1} (MANGO_SANDBOX_UID_BASE, MANGO_SANDBOX_UID_COUNT): set the range back so that it holds the ids already given out.`,
    );
  }
  return id;
}

export function createSandboxUsers(options: SandboxUsersOptions): SandboxUsers {
  const { repository, range } = options;
  const now = options.now ?? Date.now;
  const userIds = new Map<string, Promise<number>>();
  const grantGroups = new Map<string, number>();
  const checked = (id: number, what: string): number => checkedSandboxId(range, id, what);

  const idOfUser = (userId: string): Promise<number> => {
    let pending = userIds.get(userId);
    if (pending === undefined) {
      pending = repository
        .allocate('user', userId, range, new Date(now()).toISOString())
        .then((id) => checked(id, `The user ${userId}`));
      // A failure (a full range, a database fault) is not remembered: the next call asks again.
      pending.catch(() => userIds.delete(userId));
      userIds.set(userId, pending);
    }
    return pending;
  };

  const groupOfGrant = async (path: string): Promise<number | undefined> => {
    const known = grantGroups.get(path);
    if (known !== undefined) return known;
    const id = await repository.find('grant', path);
    if (id === undefined) return undefined;
    grantGroups.set(path, checked(id, `The granted directory ${path}`));
    return id;
  };

  return {
    range,
    async userFor(userId, roots) {
      const [uid, grants] = await Promise.all([idOfUser(userId), Promise.all(roots.map(groupOfGrant))]);
      const groups = [range.base];
      for (const group of grants) if (group !== undefined && !groups.includes(group)) groups.push(group);
      return { uid, gid: uid, groups };
    },
  };
}
