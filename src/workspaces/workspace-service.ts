/**
 * Workspaces belong to users (below chats, above the database). A user's workspaces are their
 * personal workspace (`<MANGO_WORKSPACES_DIR>/<user id>`, created on first use, named by the id so a
 * rename or a hostile name changes nothing) plus the directories an operator granted them; they are the
 * most any tool call of that user can reach. Everything is read from the repository on every call, so
 * a grant or revoke made by any instance or CLI command applies at the next call.
 *
 * Guarantees:
 * - A grant is stored as a real path and is refused when it contains or lies inside a protected
 *   directory (data, installation, workspaces directory — which holds every personal workspace —,
 *   `/proc`, `/sys`, `/dev`), or is not an existing directory; the message says which. When the
 *   service is given a `prepareGrant` (the shell sandbox's: the grant's group, and whether the user's
 *   commands can reach the directory), nothing is stored unless it agrees.
 * - `reachableSetFor` re-validates the binding each time (the directory still resolves to itself and
 *   still lies in a workspace; unrestricted only while the user is allowed it). The user's workspaces
 *   become roots once per call (`computeUserReach`); the binding is checked against that reach and the
 *   call's set is bound from it (`bindReachableSet`): nothing else decides what a call may reach.
 * - Paths outside the user's workspaces all get one fixed answer (`locate-directory.ts`).
 */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { GrantPreparation } from '../contracts/grant-preparation.ts';
import { HeldDirectory, withHeldDirectory } from '../descriptors/held-directory.ts';
import {
  accessAt,
  bindReachableSet,
  computeUserReach,
  isPathInside,
  type ReachableSet,
  type Workspace,
} from '../tools/access/reachable-set.ts';
import type { ProtectedPath } from './assemble-protected-paths.ts';
import { expandRequestedPath, locateDirectory } from './locate-directory.ts';
import type { WorkspaceDisks } from './workspace-disks.ts';
import { WorkspaceError } from './workspace-error.ts';
import { applyWorkspaceOwnership, type WorkspaceOwner } from './workspace-ownership.ts';
import type { WorkspaceGrant, WorkspaceRepository } from './workspace-repository.ts';

/** Most subdirectory names `listDirectories` returns. */
export const MAX_LISTED_DIRECTORIES = 1000;

export interface WorkspaceServiceOptions {
  repository: WorkspaceRepository;
  /** Real path of `MANGO_WORKSPACES_DIR` (see `prepareWorkspacesDirectory`). */
  workspacesDirectory: string;
  protectedPaths: readonly ProtectedPath[];
  /**
   * Who a user's newly created personal workspace belongs to (their own uid, when the server runs
   * commands as a uid per user); absent, or undefined for the user, = the server's uid.
   */
  ownerOf?: (userId: string) => Promise<WorkspaceOwner | undefined>;
  /**
   * Asked before each grant is stored, with its real path (the command line passes the shell
   * sandbox's: sandbox/sandbox-grant-preparation.ts). Absent: grants are checked against the protected
   * set only, and `fixOwner` is refused.
   */
  prepareGrant?: GrantPreparation;
  /**
   * The disk quotas of personal workspaces (workspace-disks.ts): a workspace with an image is used only
   * while it is mounted, and a new one of a user with a quota is made as an image. Absent: plain
   * directories only.
   */
  disks?: WorkspaceDisks;
  now?: () => number;
}

export interface GrantOptions {
  /** Give the directory to the grant's group first, so the user's commands can use it. */
  fixOwner?: boolean;
}

/** What a chat or MCP session is bound to, as stored. */
export interface WorkspaceBinding {
  /** Real path; null = the user's personal workspace (chats made before workspaces existed). */
  workingDirectory: string | null;
  /** False only when the chat or session asked to reach all of the user's workspaces. */
  confined: boolean;
}

export interface BoundAccess {
  reachable: ReachableSet;
  /** Whether the call is confined to its working directory (asked for, or the user is not allowed otherwise). */
  confined: boolean;
}

/** The one shape of a refused grant: the directory as given, then why. */
function grantRefused(directory: string, reason: string): WorkspaceError {
  return new WorkspaceError('grant_refused', `Cannot grant ${directory}: ${reason}`);
}

/** A user id names a directory: only the characters ids are made of. */
const USER_ID_PATTERN = /^[A-Za-z0-9_-]{1,100}$/;

export class WorkspaceService {
  readonly #options: WorkspaceServiceOptions;
  readonly #now: () => number;

  constructor(options: WorkspaceServiceOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** Real path of the directory holding every personal workspace (`MANGO_WORKSPACES_DIR`). */
  get workspacesDirectory(): string {
    return this.#options.workspacesDirectory;
  }

  /** Real paths of the protected set, as the reachable set carries them. */
  get protectedPaths(): string[] {
    return this.#options.protectedPaths.map((entry) => entry.path);
  }

  /** Where the user's personal workspace is (or will be, on first use). */
  personalWorkspacePath(userId: string): string {
    if (!USER_ID_PATTERN.test(userId)) {
      throw new Error(`A user id cannot name a workspace directory: ${JSON.stringify(userId)}.`);
    }
    return join(this.#options.workspacesDirectory, userId);
  }

  /** The disk quotas of personal workspaces, when this service was given them. */
  get disks(): WorkspaceDisks | undefined {
    return this.#options.disks;
  }

  /**
   * The user's personal workspace (real path), created (mode 0700, given to the owner) on first use. The
   * workspaces directory is held open and the workspace made, given away and checked through it, so a
   * workspace replaced by a link is refused, never followed. With disk quotas, a workspace on an image
   * is returned only once that image is mounted there.
   */
  async personalWorkspace(userId: string): Promise<string> {
    return (await this.#personal(userId)).path;
  }

  /** {@link personalWorkspace}, with the workspace's disk quota when it is an image of its own. */
  async #personal(userId: string): Promise<{ path: string; diskQuotaBytes?: number }> {
    const path = this.personalWorkspacePath(userId);
    return withHeldDirectory(HeldDirectory.open(this.#options.workspacesDirectory), async (parent) => {
      const disks = this.#options.disks;
      const ownerOf = async () => this.#options.ownerOf?.(userId);
      if (disks !== undefined && (await disks.preparePersonal(parent, userId, ownerOf)).imageBacked) {
        return await withHeldDirectory(parent.openDirectory(userId), async (mounted) => ({
          path,
          diskQuotaBytes: await disks.quotaOf(userId, mounted),
        }));
      }
      let created = false;
      try {
        parent.createDirectory(userId, 0o700);
        created = true;
      } catch (error) {
        if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
      }
      if (created) {
        const owner = await this.#options.ownerOf?.(userId);
        await withHeldDirectory(parent.openDirectory(userId), (workspace) =>
          applyWorkspaceOwnership(workspace, owner),
        );
      }
      if (!parent.statEntry(userId).isDirectory()) {
        // Fails closed: something replaced the workspace (a link could point anywhere).
        throw new Error(`The personal workspace ${path} is not a plain directory; no tool may run there.`);
      }
      return { path };
    });
  }

  /** The user's workspaces: the personal one first, then grants by path. */
  async listWorkspaces(userId: string): Promise<Workspace[]> {
    const [personal, grants] = await Promise.all([
      this.#personal(userId),
      this.#options.repository.listGrants(userId),
    ]);
    return [
      { ...personal, access: 'read-write', kind: 'personal' },
      ...grants.map(
        (grant): Workspace => ({
          path: grant.path,
          access: grant.readOnly ? 'read-only' : 'read-write',
          kind: 'granted',
        }),
      ),
    ];
  }

  isUnrestrictedAllowed(userId: string): Promise<boolean> {
    return this.#options.repository.isUnrestrictedAllowed(userId);
  }

  setUnrestrictedAllowed(userId: string, allowed: boolean): Promise<boolean> {
    return this.#options.repository.setUnrestrictedAllowed(userId, allowed);
  }

  /** Everything the user could reach with an unrestricted binding: where requested paths must lie. */
  async #everything(userId: string): Promise<{ set: ReachableSet; personal: string }> {
    const workspaces = await this.listWorkspaces(userId);
    const personal = workspaces[0]!.path;
    return { set: computeUserReach(workspaces, personal, this.protectedPaths), personal };
  }

  /**
   * The real path of a directory the user asks to work in (absolute, `~` or `~/…`; omitted = the
   * personal workspace).
   * @throws WorkspaceError (`outside_workspaces` with its one fixed message, or a specific one inside).
   */
  async resolveWorkingDirectory(userId: string, requested: string | undefined): Promise<string> {
    const { set, personal } = await this.#everything(userId);
    if (requested === undefined || requested.trim() === '') return personal;
    return locateDirectory(expandRequestedPath(requested, personal), requested, set);
  }

  /** Refuses an unrestricted binding for a user not allowed one. */
  async checkUnrestricted(userId: string, unrestricted: boolean): Promise<void> {
    if (!unrestricted || (await this.isUnrestrictedAllowed(userId))) return;
    throw new WorkspaceError(
      'unrestricted_not_allowed',
      'This user may not have unrestricted chats (reaching all of their workspaces at once); an operator ' +
        'can allow it with `mango user set NAME --allow-unrestricted`. Without it, a chat is confined to ' +
        'its working directory.',
    );
  }

  /**
   * The reachable set of one call under `binding`, checked again now: the directory must still be
   * itself (not replaced by a link) and in a workspace, and an unrestricted binding counts only while
   * the user is allowed it.
   * @throws WorkspaceError.
   */
  async reachableSetFor(userId: string, binding: WorkspaceBinding): Promise<BoundAccess> {
    const [{ set, personal }, allowed] = await Promise.all([
      this.#everything(userId),
      binding.confined ? Promise.resolve(false) : this.isUnrestrictedAllowed(userId),
    ]);
    const stored = binding.workingDirectory ?? personal;
    const real = await locateDirectory(stored, stored, set);
    if (real !== stored) {
      throw new WorkspaceError(
        'invalid_path',
        `The working directory ${stored} now resolves to ${real}; start a new chat or session to work there.`,
      );
    }
    const confined = binding.confined || !allowed;
    return { confined, reachable: bindReachableSet(set, real, confined) };
  }

  /**
   * Subdirectory names of a directory in the user's workspaces (sorted, at most
   * `MAX_LISTED_DIRECTORIES`), for choosing a working directory. Links are not followed or listed.
   */
  async listDirectories(userId: string, requested: string): Promise<{ path: string; directories: string[] }> {
    const { set, personal } = await this.#everything(userId);
    const path = await locateDirectory(expandRequestedPath(requested, personal), requested, set);
    // Listed through the directory held with links refused: one swapped for a link is not listed.
    const entries = await withHeldDirectory(HeldDirectory.open(path), (directory) => directory.entries());
    const directories = entries
      .filter((entry) => entry.isDirectory() && accessAt(set, join(path, entry.name)) !== undefined)
      .map((entry) => entry.name)
      .sort((left, right) => (left < right ? -1 : left > right ? 1 : 0))
      .slice(0, MAX_LISTED_DIRECTORIES);
    return { path, directories };
  }

  /**
   * Grants `directory` to the user (or changes its read-only flag), once `prepareGrant` agrees.
   * `notes` are what the preparation did on the way (what `fixOwner` changed), one line each.
   * @throws WorkspaceError `grant_refused` saying why.
   */
  async grant(
    userId: string,
    directory: string,
    readOnly: boolean,
    options: GrantOptions = {},
  ): Promise<{ grant: WorkspaceGrant; created: boolean; notes: readonly string[] }> {
    const path = await this.checkGrantable(directory);
    const fixOwner = options.fixOwner === true;
    const prepare = this.#options.prepareGrant;
    if (prepare === undefined && fixOwner) {
      throw grantRefused(
        directory,
        "--fix-owner needs the shell sandbox's ids, and this process was given none (a `mango` command passes its own).",
      );
    }
    const prepared = await prepare?.({ userId, path, readOnly, fixOwner });
    if (prepared?.refusal !== undefined) throw grantRefused(directory, prepared.refusal);
    const grant: WorkspaceGrant = {
      userId,
      path,
      readOnly,
      createdAt: new Date(this.#now()).toISOString(),
    };
    const { created } = await this.#options.repository.putGrant(grant);
    return { grant, created, notes: prepared?.notes ?? [] };
  }

  /**
   * The real path `directory` would be granted as.
   * @throws WorkspaceError `grant_refused`.
   */
  async checkGrantable(directory: string): Promise<string> {
    const refuse = (reason: string) => grantRefused(directory, reason);
    if (!isAbsolute(directory)) throw refuse('give an absolute path.');
    let real: string;
    try {
      real = await realpath(directory);
    } catch {
      throw refuse('it does not exist.');
    }
    if (!(await stat(real)).isDirectory()) throw refuse('it is not a directory.');
    for (const entry of this.#options.protectedPaths) {
      if (isPathInside(real, entry.path)) {
        throw refuse(`${real} lies inside ${entry.what} (${entry.path}), which no user may reach.`);
      }
      if (isPathInside(entry.path, real)) {
        throw refuse(`${real} contains ${entry.what} (${entry.path}), which no user may reach.`);
      }
    }
    return real;
  }

  /** Removes the user's grant of `directory` (as given, or as it resolves now); false when none. */
  async revoke(userId: string, directory: string): Promise<boolean> {
    if (await this.#options.repository.deleteGrant(userId, directory)) return true;
    const real = await realpath(directory).catch(() => undefined);
    return real !== undefined && real !== directory && this.#options.repository.deleteGrant(userId, real);
  }

  listGrants(userId?: string): Promise<WorkspaceGrant[]> {
    return this.#options.repository.listGrants(userId);
  }
}
