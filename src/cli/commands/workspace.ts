/**
 * `mango workspace grant | revoke | list | grant-existing | migrate-owners`: operators decide which
 * directories each user's tools may reach. Everything is stored in the database, so every server
 * instance applies a change at its next tool call. A grant that touches the server's own directories
 * (data, installation, workspaces), `/proc`, `/sys` or `/dev` is refused with the reason. Each granted
 * directory gets a group of its own, and as root a grant the user's sandboxed commands could not reach
 * is refused with what to change; `--fix-owner` gives the directory to its group first
 * (sandbox/sandbox-grant-preparation.ts). `migrate-owners` gives, once, what the one uid of earlier
 * versions owned to today's per-user uids (workspace-migrate-owners.ts).
 */

import { isAbsolute, resolve } from 'node:path';
import type { Database } from '../../db/database.ts';
import { DatabaseChatRepository } from '../../db/database-chat-repository.ts';
import { DatabaseUserRepository } from '../../db/database-user-repository.ts';
import { isPathInside } from '../../tools/access/reachable-set.ts';
import type { User } from '../../users/user-repository.ts';
import { WorkspaceError } from '../../workspaces/workspace-error.ts';
import type { WorkspaceService } from '../../workspaces/workspace-service.ts';
import { loadCliConfig } from '../load-cli-config.ts';
import { withCliDatabase } from '../open-cli-database.ts';
import { openWorkspaceService } from '../open-workspace-service.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { type CliCommand, type CliIo, UsageError } from '../usage-error.ts';
import { migrateOwners } from './workspace-migrate-owners.ts';
import { moveToImage } from './workspace-move-to-image.ts';

export const WORKSPACE_USAGE = `  mango workspace grant NAME DIR [--read-only] [--fix-owner]
                                                  let NAME's tools reach DIR (and below); as root, refused
                                                  unless NAME's commands can; --fix-owner first gives DIR
                                                  to the grant's group (never the directories above it)
  mango workspace revoke NAME DIR                 take DIR away again (applies at the next tool call)
  mango workspace list [NAME] [--json]            each user's workspaces: personal, then grants
  mango workspace grant-existing [--dry-run]      grant each user the directories their chats use
  mango workspace migrate-owners [--dry-run] [--verbose]
                                                  give what uid MANGO_SANDBOX_UID owned to each user's own
                                                  uid and each grant's group (--verbose lists each change)
  mango workspace move-to-image NAME | --all      with the server stopped, move NAME's plain personal
                                                  workspace (or everyone's) onto its disk image`;

interface WorkspaceContext {
  users: DatabaseUserRepository;
  workspaces: WorkspaceService;
  database: Database;
}

async function withWorkspaces<T>(io: CliIo, use: (context: WorkspaceContext) => Promise<T>): Promise<T> {
  const config = loadCliConfig(io);
  return withCliDatabase(io, async (database) =>
    use({
      database,
      users: new DatabaseUserRepository(database),
      workspaces: openWorkspaceService(config, database, io.env),
    }),
  );
}

async function requireUser(
  io: CliIo,
  users: DatabaseUserRepository,
  name: string,
): Promise<User | undefined> {
  const user = await users.findByName(name);
  if (!user) io.stderr(`mango: no user named "${name}" (see \`mango user list\`).\n`);
  return user;
}

function absolute(io: CliIo, directory: string): string {
  return isAbsolute(directory) ? directory : resolve(io.cwd, directory);
}

async function grant(
  io: CliIo,
  name: string,
  directory: string,
  readOnly: boolean,
  fixOwner: boolean,
): Promise<number> {
  return withWorkspaces(io, async ({ users, workspaces }) => {
    const user = await requireUser(io, users, name);
    if (!user) return 1;
    try {
      const {
        grant: granted,
        created,
        notes,
      } = await workspaces.grant(user.id, absolute(io, directory), readOnly, { fixOwner });
      for (const note of notes) io.stdout(`${note}\n`);
      const access = granted.readOnly ? 'read-only' : 'read-write';
      io.stdout(`${created ? 'Granted' : 'Updated'} ${granted.path} to "${name}" (${access}).\n`);
      return 0;
    } catch (error) {
      if (!WorkspaceError.isInstance(error)) throw error;
      io.stderr(`mango: ${error.message}\n`);
      return 1;
    }
  });
}

async function revoke(io: CliIo, name: string, directory: string): Promise<number> {
  return withWorkspaces(io, async ({ users, workspaces }) => {
    const user = await requireUser(io, users, name);
    if (!user) return 1;
    if (await workspaces.revoke(user.id, absolute(io, directory))) {
      io.stdout(`Revoked ${directory} from "${name}"; their next tool call no longer reaches it.\n`);
      return 0;
    }
    io.stderr(`mango: "${name}" has no grant of ${directory} (see \`mango workspace list ${name}\`).\n`);
    return 1;
  });
}

async function list(io: CliIo, name: string | undefined, json: boolean): Promise<number> {
  return withWorkspaces(io, async ({ users, workspaces }) => {
    let selected: User[];
    if (name === undefined) selected = await users.list();
    else {
      const user = await requireUser(io, users, name);
      if (!user) return 1;
      selected = [user];
    }
    const rows: { user: string; kind: string; access: string; path: string }[] = [];
    for (const user of selected) {
      rows.push({
        user: user.name,
        kind: 'personal',
        access: 'read-write',
        path: workspaces.personalWorkspacePath(user.id),
      });
      for (const item of await workspaces.listGrants(user.id)) {
        rows.push({
          user: user.name,
          kind: 'granted',
          access: item.readOnly ? 'read-only' : 'read-write',
          path: item.path,
        });
      }
    }
    if (json) {
      io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
      return 0;
    }
    const width = Math.max(4, ...rows.map((row) => row.user.length));
    for (const row of rows) {
      io.stdout(`${row.user.padEnd(width)}  ${row.kind.padEnd(8)}  ${row.access.padEnd(10)}  ${row.path}\n`);
    }
    return 0;
  });
}

/** Grants each user exactly the directories their chats are bound to, outside their personal workspace. */
async function grantExisting(io: CliIo, dryRun: boolean): Promise<number> {
  return withWorkspaces(io, async ({ users, workspaces, database }) => {
    const chats = new DatabaseChatRepository(database);
    let refused = 0;
    for (const user of await users.list()) {
      const personal = workspaces.personalWorkspacePath(user.id);
      const granted = new Set((await workspaces.listGrants(user.id)).map((item) => item.path));
      const directories = new Set<string>();
      for (const chat of await chats.listChats(user.id)) {
        if (chat.workingDirectory !== null && !isPathInside(chat.workingDirectory, personal)) {
          directories.add(chat.workingDirectory);
        }
      }
      for (const directory of [...directories].sort()) {
        if (granted.has(directory)) {
          io.stdout(`already granted: "${user.name}" ${directory}\n`);
          continue;
        }
        try {
          const path = await workspaces.checkGrantable(directory);
          if (!dryRun) await workspaces.grant(user.id, path, false);
          io.stdout(`${dryRun ? 'would grant' : 'granted'}: "${user.name}" ${path} (read-write)\n`);
        } catch (error) {
          if (!WorkspaceError.isInstance(error)) throw error;
          refused += 1;
          io.stdout(`refused: "${user.name}" ${error.message}\n`);
        }
      }
    }
    if (refused > 0) {
      io.stdout(
        `${refused} director${refused === 1 ? 'y was' : 'ies were'} not granted; chats bound there fail with invalid_working_directory until the user starts a new chat elsewhere.\n`,
      );
    }
    return 0;
  });
}

export const workspaceCommand: CliCommand = async (argv, io) => {
  const [subcommand, ...rest] = argv;
  const { values, positionals } = parseCommandLine(rest, {
    'read-only': { type: 'boolean' },
    'fix-owner': { type: 'boolean' },
    json: { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    verbose: { type: 'boolean' },
    all: { type: 'boolean' },
  });
  const take = (count: number, what: string): string[] => {
    if (positionals.length < count) throw new UsageError(`mango workspace ${subcommand} needs ${what}.`);
    if (positionals.length > count) {
      throw new UsageError(`Unexpected arguments: ${positionals.slice(count).join(' ')}`);
    }
    return positionals;
  };
  switch (subcommand) {
    case 'grant': {
      const [name, directory] = take(2, 'NAME DIR');
      return grant(io, name!, directory!, values['read-only'] === true, values['fix-owner'] === true);
    }
    case 'revoke': {
      const [name, directory] = take(2, 'NAME DIR');
      return revoke(io, name!, directory!);
    }
    case 'list': {
      if (positionals.length > 1)
        throw new UsageError(`Unexpected arguments: ${positionals.slice(1).join(' ')}`);
      return list(io, positionals[0], values.json === true);
    }
    case 'grant-existing':
      take(0, 'no arguments');
      return grantExisting(io, values['dry-run'] === true);
    case 'migrate-owners':
      take(0, 'no arguments');
      return migrateOwners(io, { dryRun: values['dry-run'] === true, verbose: values.verbose === true });
    case 'move-to-image':
      if (values.all === true) return moveToImage(io, take(0, 'NAME or --all, not both')[0]);
      return moveToImage(io, take(1, 'NAME or --all')[0]);
    default:
      throw new UsageError(
        subcommand ? `Unknown workspace subcommand "${subcommand}".` : 'mango workspace needs a subcommand.',
      );
  }
};
