/**
 * `mango workspace migrate-owners [--dry-run] [--verbose]`: gives what belonged to the one uid every
 * user's commands ran as before per-user uids (`MANGO_SANDBOX_UID`) to its owners of today, so shell
 * commands run again where they are refused until then (sandbox/unmigrated-roots.ts):
 *
 * - each user's personal workspace, and their stdio MCP servers' state directories (in the workspaces
 *   directory's `.mcp-state/`, and in the data directory's `mcp-state/` where earlier versions kept them
 *   and no server has moved them yet), to the user's uid (allocated here when the user has none yet);
 * - each granted directory to its one user, or to root when several users hold it, and to the grant's
 *   own group (allocated here).
 *
 * What each entry gets is legacy-owner-change.ts's rule; the walk is migrate-tree-owners.ts's. The
 * output has one line per tree with its counts, then what was left for the operator (hard-linked files
 * above all), and a summary. A dry run allocates no id and changes nothing, and prints the lines a
 * real run would. Exit 0 when every tree is done (entries left are reported, not failures), 1 when a
 * tree failed (the message names its path; a later run continues where it stopped).
 */
import { lstatSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { DatabaseSandboxIdRepository } from '../../db/database-sandbox-id-repository.ts';
import { DatabaseUserRepository } from '../../db/database-user-repository.ts';
import { DatabaseWorkspaceRepository } from '../../db/database-workspace-repository.ts';
import { HeldDirectory } from '../../descriptors/held-directory.ts';
import { errorCodeOf } from '../../descriptors/system-call-error.ts';
import { getUserImageDirectoryName } from '../../images/image-files.ts';
import {
  FORMER_MCP_STATE_DIRECTORY_NAME,
  MCP_STATE_DIRECTORY_NAME,
} from '../../mcp-client/mcp-state-directory.ts';
import type { OwnerRule } from '../../sandbox/legacy-owner-change.ts';
import {
  type ChangedEntry,
  migrateTreeOwners,
  type TreeMigration,
  type TreeToMigrate,
} from '../../sandbox/migrate-tree-owners.ts';
import type { SandboxIdRange } from '../../sandbox/sandbox-id-range.ts';
import type { SandboxIdKind } from '../../sandbox/sandbox-id-repository.ts';
import { checkedSandboxId } from '../../sandbox/sandbox-users.ts';
import {
  readHostAccounts,
  readShellSandboxConfig,
  type ShellSandboxConfig,
  sandboxRangeRefusal,
} from '../../sandbox/shell-sandbox-config.ts';
import { loadCliConfig } from '../load-cli-config.ts';
import { withCliDatabase } from '../open-cli-database.ts';
import { type CliIo, UsageError } from '../usage-error.ts';

export interface MigrateOwnersOptions {
  dryRun: boolean;
  /** Also list every entry changed, with its owner and mode before and after. */
  verbose: boolean;
  /** Default: the clock. */
  now?: () => number;
}

/** An id a dry run would allocate: shown as "new", never written anywhere. */
const NOT_YET_GIVEN = -1;

/** One tree to migrate: what the output calls it, and how to find its owners. */
interface Job {
  label: string;
  path: string;
  kind: OwnerRule['kind'];
  /** The uid its entries go to, and the gid; resolved when the job runs. */
  owner: () => Promise<{ uid: number; gid: number; shown: string }>;
  skip?: string[];
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function idText(id: number): string {
  return id === NOT_YET_GIVEN ? 'new' : String(id);
}

function ownerText(uid: number, gid: number, mode: number): string {
  return `${idText(uid)}:${idText(gid)} ${mode.toString(8).padStart(4, '0')}`;
}

function countsText(migration: TreeMigration): string {
  const hardLinks = migration.left.filter((entry) => entry.reason === 'hard link').length;
  const others = migration.left.length - hardLinks;
  return `${migration.reowned} re-owned, ${migration.setuidCleared} setuid cleared, ${plural(hardLinks, 'hard link', 'hard links')} left${others > 0 ? `, ${plural(others, 'other entry', 'other entries')} left` : ''}`;
}

function leftText(entry: TreeMigration['left'][number]): string {
  if (entry.reason === 'hard link') return `  hard link left: ${entry.path} (${entry.links} links)`;
  if (entry.reason === 'device') return `  device left: ${entry.path}`;
  return `  on another filesystem, not entered: ${entry.path}`;
}

/** The real path of `path`, or undefined when it does not exist. */
function realOrAbsent(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch (error) {
    if (errorCodeOf(error) === 'ENOENT') return undefined;
    throw error;
  }
}

/** Whether `path` exists (a link counts: the walk then refuses it, naming it). */
function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    if (errorCodeOf(error) === 'ENOENT') return false;
    throw error;
  }
}

/** The state directories of `userId`'s stdio MCP servers below `base` (`<base>/<user>/<server>`). */
function stateDirectoriesIn(base: string | undefined, userId: string): string[] {
  if (base === undefined) return [];
  const userDirectory = join(base, getUserImageDirectoryName(userId));
  if (!exists(userDirectory)) return [];
  // Listed through the held directory: a server directory swapped for a link is not one.
  const directory = HeldDirectory.open(userDirectory);
  try {
    return directory
      .entriesSync()
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(userDirectory, entry.name))
      .sort();
  } finally {
    directory.close();
  }
}

async function collectJobs(
  database: Database,
  paths: { workspaces: string | undefined; data: string | undefined },
  idOf: (kind: SandboxIdKind, owner: string) => Promise<number>,
): Promise<Job[]> {
  const users = await new DatabaseUserRepository(database).list();
  const grants = await new DatabaseWorkspaceRepository(database).listGrants();
  const jobs: Job[] = [];
  const stateBases = [
    paths.data === undefined ? undefined : realOrAbsent(join(paths.data, FORMER_MCP_STATE_DIRECTORY_NAME)),
    paths.workspaces === undefined
      ? undefined
      : realOrAbsent(join(paths.workspaces, MCP_STATE_DIRECTORY_NAME)),
  ];
  for (const user of users) {
    const owner = async () => {
      const uid = await idOf('user', user.id);
      return { uid, gid: uid, shown: `uid ${idText(uid)}` };
    };
    if (paths.workspaces !== undefined) {
      const workspace = join(paths.workspaces, user.id);
      if (exists(workspace)) {
        jobs.push({
          label: `workspace of "${user.name}" ${workspace}`,
          path: workspace,
          kind: 'personal',
          owner,
        });
      }
    }
    for (const base of stateBases) {
      for (const state of stateDirectoriesIn(base, user.id)) {
        jobs.push({ label: `MCP state of "${user.name}" ${state}`, path: state, kind: 'personal', owner });
      }
    }
  }
  const holders = new Map<string, string[]>();
  for (const grant of grants) holders.set(grant.path, [...(holders.get(grant.path) ?? []), grant.userId]);
  const names = new Map(users.map((user) => [user.id, user.name]));
  const grantPaths = [...holders.keys()].sort();
  for (const path of grantPaths) {
    const userIds = holders.get(path)!;
    const shownUsers = userIds
      .map((id) => `"${names.get(id) ?? id}"`)
      .sort()
      .join(', ');
    jobs.push({
      label: `grant ${path} to ${shownUsers}`,
      path,
      kind: 'grant',
      // A directory granted inside this one is migrated with its own owner and group.
      skip: grantPaths.filter((other) => other.startsWith(`${path}/`)),
      owner: async () => {
        const gid = await idOf('grant', path);
        const uid = userIds.length === 1 ? await idOf('user', userIds[0]!) : 0;
        return { uid, gid, shown: `uid ${idText(uid)}, group ${idText(gid)}` };
      },
    });
  }
  return jobs;
}

/** Runs the command; returns its exit code. */
/** The counts a run adds up over its trees. */
interface MigrationTotals {
  reowned: number;
  setuidCleared: number;
  hardLinks: number;
  failed: number;
}

/**
 * Migrates one tree to its owner and prints what it did (each change too, when verbose); a tree that
 * fails is counted and named, and the run goes on with the next.
 */
async function migrateJob(
  io: CliIo,
  job: Job,
  context: { legacyUid: number; options: MigrateOwnersOptions; changedLinks: Set<string> },
  totals: MigrationTotals,
): Promise<void> {
  const { options, changedLinks } = context;
  try {
    const owner = await job.owner();
    const changes: ChangedEntry[] = [];
    const tree: TreeToMigrate = {
      path: job.path,
      rule: { kind: job.kind, legacyUid: context.legacyUid, uid: owner.uid, gid: owner.gid },
      ...(job.skip === undefined ? {} : { skip: job.skip }),
    };
    const migration = migrateTreeOwners(tree, {
      dryRun: options.dryRun,
      changedLinks,
      ...(options.verbose ? { onChange: (change: ChangedEntry) => changes.push(change) } : {}),
    });
    io.stdout(`${job.label} (${owner.shown}): ${countsText(migration)}\n`);
    for (const change of changes) {
      io.stdout(
        `  ${change.path}: ${ownerText(change.from.uid, change.from.gid, change.from.mode)} → ${ownerText(change.to.uid, change.to.gid, change.to.mode)}\n`,
      );
    }
    for (const entry of migration.left) io.stdout(`${leftText(entry)}\n`);
    totals.reowned += migration.reowned;
    totals.setuidCleared += migration.setuidCleared;
    totals.hardLinks += migration.left.filter((entry) => entry.reason === 'hard link').length;
  } catch (error) {
    totals.failed += 1;
    io.stderr(`mango: ${job.label}: ${(error as Error).message}\n`);
  }
}

export async function migrateOwners(io: CliIo, options: MigrateOwnersOptions): Promise<number> {
  const config = loadCliConfig(io);
  let sandbox: ShellSandboxConfig;
  try {
    sandbox = readShellSandboxConfig(io.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
  if (!options.dryRun && process.getuid?.() !== 0) {
    io.stderr(
      `mango: migrate-owners gives files to other uids, which only root may do (this runs as uid ${process.getuid?.()}); run it as root (with --dry-run first to see what it would change).\n`,
    );
    return 1;
  }
  const refusal = sandboxRangeRefusal(sandbox, readHostAccounts());
  if (refusal !== undefined) {
    io.stderr(`mango: migrate-owners cannot give out ids: ${refusal}\n`);
    return 1;
  }
  const range: SandboxIdRange = sandbox.range;
  const now = options.now ?? Date.now;
  return withCliDatabase(io, async (database) => {
    const ids = new DatabaseSandboxIdRepository(database);
    const idOf = async (kind: SandboxIdKind, owner: string): Promise<number> => {
      const id = options.dryRun
        ? await ids.find(kind, owner)
        : await ids.allocate(kind, owner, range, new Date(now()).toISOString());
      if (id === undefined) return NOT_YET_GIVEN;
      return checkedSandboxId(
        range,
        id,
        kind === 'user' ? `The user ${owner}` : `The granted directory ${owner}`,
      );
    };
    const jobs = await collectJobs(
      database,
      {
        workspaces: realOrAbsent(config.workspacesDirectory),
        data: realOrAbsent(resolve(io.cwd, config.dataDirectory)),
      },
      idOf,
    );
    if (jobs.length === 0) {
      io.stdout('No workspace, granted directory or MCP state directory to migrate.\n');
      return 0;
    }
    if (options.dryRun) io.stdout('Dry run: nothing is changed; a real run makes the changes below.\n');
    const totals: MigrationTotals = { reowned: 0, setuidCleared: 0, hardLinks: 0, failed: 0 };
    const changedLinks = new Set<string>();
    let trees = 0;
    for (const job of jobs) {
      if (!exists(job.path)) {
        // A granted directory removed since: nothing of it is left to give (its grant stays until revoked).
        io.stdout(`${job.label}: the directory is gone, nothing to migrate\n`);
        continue;
      }
      trees += 1;
      await migrateJob(io, job, { legacyUid: sandbox.legacyUid, options, changedLinks }, totals);
    }
    io.stdout(`${summary(trees, totals, options.dryRun)}\n`);
    return totals.failed > 0 ? 1 : 0;
  });
}

function summary(trees: number, totals: MigrationTotals, dryRun: boolean): string {
  const links = plural(totals.hardLinks, 'hard link', 'hard links');
  const done = trees - totals.failed;
  const sentences: string[] = [];
  if (done === 0) {
    // Every tree failed: only the failures are worth a sentence.
  } else if (dryRun) {
    sentences.push(
      `Dry run over ${plural(done, 'tree', 'trees')}: a real run would re-own ${plural(totals.reowned, 'entry', 'entries')}, clear setuid or setgid on ${plural(totals.setuidCleared, 'file', 'files')} and leave ${links}.`,
    );
  } else if (totals.reowned === 0 && totals.setuidCleared === 0) {
    sentences.push(
      `Nothing to change in ${plural(done, 'tree', 'trees')}${totals.hardLinks > 0 ? `; ${links} left` : ''}.`,
    );
  } else {
    sentences.push(
      `Migrated ${plural(done, 'tree', 'trees')}: ${plural(totals.reowned, 'entry', 'entries')} re-owned, setuid or setgid cleared on ${plural(totals.setuidCleared, 'file', 'files')}, ${links} left.`,
    );
  }
  if (totals.hardLinks > 0) {
    sentences.push(
      'Each hard link left may be another user\'s file too: resolve it (see "Upgrading to per-user uids" in docs/operating.md), then run the command again.',
    );
  }
  if (totals.failed > 0) {
    sentences.push(
      `${plural(totals.failed, 'tree', 'trees')} could not be migrated (the errors above name them); run the command again once each is fixed.`,
    );
  }
  return sentences.join(' ');
}
