/**
 * The shell sandbox an in-process test app runs bash through, as `startServer` installs one: the
 * environment's sandbox with the app's database as its store of users' uids. `restore` puts back the
 * sandbox that was installed before.
 */
import type { Database } from '../../src/db/database.ts';
import { DatabaseSandboxIdRepository } from '../../src/db/database-sandbox-id-repository.ts';
import { installShellSandbox } from '../../src/sandbox/host-shell-sandbox.ts';
import { createShellSandboxFromEnvironment } from '../../src/sandbox/shell-sandbox-config.ts';

export function installTestShellSandbox(database: Database): { restore(): void } {
  const sandbox = createShellSandboxFromEnvironment(process.env, {
    ids: new DatabaseSandboxIdRepository(database),
    log: () => {},
  });
  const uninstall = installShellSandbox(sandbox);
  return {
    restore() {
      sandbox.dispose?.();
      uninstall();
    },
  };
}
