/**
 * Where a CLI command's shell tools and stdio MCP servers get their users' uids: the configured
 * database (the server's own `sandbox_ids`), opened for each lookup and closed again. A command opens
 * its database only for as long as it needs it, while a tool call may come after that (or, in
 * `mango mcp`, at any time); a lookup that reaches the database per question keeps every command on
 * the same ids as the server without holding a connection open. The sandbox asks once per user.
 */
import { DatabaseSandboxIdRepository } from '../db/database-sandbox-id-repository.ts';
import type { SandboxIdRepository } from '../sandbox/sandbox-id-repository.ts';
import { withCliDatabase } from './open-cli-database.ts';
import type { CliIo } from './usage-error.ts';

export function cliSandboxIds(io: Pick<CliIo, 'env' | 'cwd'>): SandboxIdRepository {
  // One lookup at a time: a call asks for its user and its grants at once, and each open migrates.
  let queue: Promise<unknown> = Promise.resolve();
  const withIds = <T>(use: (ids: SandboxIdRepository) => Promise<T>): Promise<T> => {
    const next = queue.then(() =>
      withCliDatabase(io, (database) => use(new DatabaseSandboxIdRepository(database))),
    );
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    find: (kind, owner) => withIds((ids) => ids.find(kind, owner)),
    allocate: (kind, owner, range, now) => withIds((ids) => ids.allocate(kind, owner, range, now)),
    list: () => withIds((ids) => ids.list()),
  };
}
