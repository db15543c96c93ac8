/**
 * `mango user add NAME | list | revoke NAME | token NAME | set NAME --[no-]allow-unrestricted |
 * quota NAME [BYTES|default]`: manage API users. `add` and `token` print the new token alone on the last line of their output (scripts take
 * `tail -n 1`); it is never shown again.
 */
import {
  DatabaseUserRepository,
  USER_NAME_PATTERN,
  UserNameTakenError,
} from '../../db/database-user-repository.ts';
import { DatabaseWorkspaceRepository } from '../../db/database-workspace-repository.ts';
import { withCliDatabase } from '../open-cli-database.ts';
import { parseCommandLine } from '../parse-command-line.ts';
import { type CliCommand, type CliIo, UsageError } from '../usage-error.ts';
import { userQuota } from './user-quota.ts';

export const USER_USAGE = `  mango user add NAME         create a user; prints its API token once, alone on the last line
  mango user list [--json]    list users (name, created, active or revoked)
  mango user revoke NAME      make the user's token stop working
  mango user token NAME       issue a new token (printed once, last line); the old one stops working at once
  mango user set NAME --allow-unrestricted | --no-allow-unrestricted
                              allow (or stop allowing) chats that reach all of NAME's workspaces
  mango user quota NAME [BYTES|default]
                              show NAME's disk quota, or set it (5GiB, or bytes; default: back to
                              MANGO_USER_DISK_BYTES); grows or reserves NAME's image at once`;

export const userCommand: CliCommand = async (argv, io) => {
  const [subcommand, ...rest] = argv;
  const { values, positionals } = parseCommandLine(rest, {
    json: { type: 'boolean' },
    'allow-unrestricted': { type: 'boolean' },
    'no-allow-unrestricted': { type: 'boolean' },
  });
  const needName = () => {
    const [name, ...extra] = positionals;
    if (name === undefined) throw new UsageError(`mango user ${subcommand} needs a NAME.`);
    if (extra.length > 0) throw new UsageError(`Unexpected arguments: ${extra.join(' ')}`);
    if (!USER_NAME_PATTERN.test(name)) {
      throw new UsageError('A user name is 1–64 letters, digits, "_", ".", "@" or "-".');
    }
    return name;
  };
  switch (subcommand) {
    case 'add': {
      const name = needName();
      return addUser(io, name);
    }
    case 'list': {
      if (positionals.length > 0) throw new UsageError(`Unexpected arguments: ${positionals.join(' ')}`);
      return listUsers(io, values.json === true);
    }
    case 'revoke': {
      const name = needName();
      return revokeUser(io, name);
    }
    case 'token': {
      const name = needName();
      return issueToken(io, name);
    }
    case 'set': {
      const name = needName();
      const allow = values['allow-unrestricted'] === true;
      const disallow = values['no-allow-unrestricted'] === true;
      if (allow === disallow) {
        throw new UsageError(
          'mango user set needs exactly one of --allow-unrestricted, --no-allow-unrestricted.',
        );
      }
      return setUnrestricted(io, name, allow);
    }
    case 'quota': {
      const [name, value, ...extra] = positionals;
      if (name === undefined) throw new UsageError('mango user quota needs a NAME.');
      if (extra.length > 0) throw new UsageError(`Unexpected arguments: ${extra.join(' ')}`);
      return userQuota(io, name, value);
    }
    default:
      throw new UsageError(
        subcommand ? `Unknown user subcommand "${subcommand}".` : 'mango user needs a subcommand.',
      );
  }
};

/** `add`: a new user, its token printed once on the last line; a taken name fails with exit 1. */
function addUser(io: CliIo, name: string): Promise<number> {
  return withCliDatabase(io, async (database) => {
    try {
      const { token } = await new DatabaseUserRepository(database).create(name);
      io.stdout(`Created user "${name}". Its API token (shown only this once):\n${token}\n`);
      return 0;
    } catch (error) {
      if (!(error instanceof UserNameTakenError)) throw error;
      io.stderr(`mango: ${error.message}\n`);
      return 1;
    }
  });
}

/** `list`: one line per user (name, created, active or revoked), or the JSON array. */
function listUsers(io: CliIo, json: boolean): Promise<number> {
  return withCliDatabase(io, async (database) => {
    const users = await new DatabaseUserRepository(database).listWithStatus();
    if (json) {
      io.stdout(`${JSON.stringify(users, null, 2)}\n`);
      return 0;
    }
    if (users.length === 0) io.stdout('No users yet: `mango user add NAME` creates one.\n');
    const width = Math.max(4, ...users.map((user) => user.name.length));
    for (const user of users) {
      io.stdout(`${user.name.padEnd(width)}  ${user.createdAt}  ${user.revoked ? 'revoked' : 'active'}\n`);
    }
    return 0;
  });
}

/** `revoke`: the user's token stops working. */
function revokeUser(io: CliIo, name: string): Promise<number> {
  return withCliDatabase(io, async (database) => {
    if (await new DatabaseUserRepository(database).revoke(name)) {
      io.stdout(`Revoked the token of "${name}".\n`);
      return 0;
    }
    io.stderr(`mango: no user named "${name}".\n`);
    return 1;
  });
}

/** `token`: a new token, printed once on the last line; the old one stops working at once. */
function issueToken(io: CliIo, name: string): Promise<number> {
  return withCliDatabase(io, async (database) => {
    const token = await new DatabaseUserRepository(database).issueToken(name);
    if (token === undefined) {
      io.stderr(`mango: no user named "${name}".\n`);
      return 1;
    }
    io.stdout(`New API token of "${name}" (shown only this once; the old one no longer works):\n${token}\n`);
    return 0;
  });
}

/** `set`: whether the user may have chats that reach all of their workspaces. */
function setUnrestricted(io: CliIo, name: string, allow: boolean): Promise<number> {
  return withCliDatabase(io, async (database) => {
    const user = await new DatabaseUserRepository(database).findByName(name);
    if (!user) {
      io.stderr(`mango: no user named "${name}".\n`);
      return 1;
    }
    await new DatabaseWorkspaceRepository(database).setUnrestrictedAllowed(user.id, allow);
    io.stdout(
      allow
        ? `"${name}" may now have unrestricted chats (reaching all of their workspaces).\n`
        : `"${name}" may no longer have unrestricted chats; their chats are confined to their working directory from the next call.\n`,
    );
    return 0;
  });
}
