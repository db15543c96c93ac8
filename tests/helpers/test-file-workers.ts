/**
 * Where an in-process test app's file work runs, as `startServer` decides it: `worker` installs the
 * environment's shell sandbox (the app's database as its store of users' uids) and the server's file
 * workers over it, so every files route and file tool does its work in the user's worker, as the
 * user's uid; `in-process` installs neither, as a server without a sandbox runs. Tests that cover file
 * work run in both (`FILE_WORK`); where the sandbox cannot run, `worker` is left out with the reason,
 * or fails when `MANGO_REQUIRE_SANDBOX=1`.
 */

import type { Database } from '../../src/db/database.ts';
import { DatabaseSandboxIdRepository } from '../../src/db/database-sandbox-id-repository.ts';
import type { FileWorkerPool } from '../../src/file-worker/file-worker-pool.ts';
import { installFileWorkers } from '../../src/file-worker/install-file-workers.ts';
import { installShellSandbox } from '../../src/sandbox/host-shell-sandbox.ts';
import { createShellSandboxFromEnvironment } from '../../src/sandbox/shell-sandbox-config.ts';
import { createTestSandbox } from '../sandbox/sandbox-host.ts';

export type FileWork = 'worker' | 'in-process';

function workerModes(): FileWork[] {
  const probe = createTestSandbox();
  const status = probe.status();
  probe.dispose();
  if (status.available || process.env.MANGO_REQUIRE_SANDBOX === '1') return ['worker'];
  console.warn(`[skip] file work in a worker: ${status.reason}`);
  return [];
}

/** The ways a test's file work runs here: through a real worker (where it can) and in process. */
export const FILE_WORK: readonly FileWork[] = [...workerModes(), 'in-process'];

export interface InstalledTestFileWork {
  /** The workers' pool, in `worker` mode. */
  pool: FileWorkerPool | undefined;
  /** Puts back what was installed before. */
  stop(): void;
}

/** Installs `mode` for an app over `database`; call before its dependencies are made, as the server does. */
export function installTestFileWork(database: Database, mode: FileWork): InstalledTestFileWork {
  if (mode === 'in-process') return { pool: undefined, stop: () => {} };
  const sandbox = createShellSandboxFromEnvironment(process.env, {
    ids: new DatabaseSandboxIdRepository(database),
    log: () => {},
  });
  const uninstallSandbox = installShellSandbox(sandbox);
  const workers = installFileWorkers(sandbox);
  const stop = () => {
    workers.stop();
    sandbox.dispose?.();
    uninstallSandbox();
  };
  if (workers.pool === undefined) {
    stop();
    throw new Error(`file workers cannot run here (MANGO_REQUIRE_SANDBOX=1): ${workers.summary}`);
  }
  return { pool: workers.pool, stop };
}
