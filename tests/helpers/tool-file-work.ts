/**
 * Test helper: where the file tools of one `describe` do their file work, for tests that call tools
 * without an app (no database): `worker` makes a real bubblewrap sandbox (tests/sandbox/sandbox-host.ts)
 * and installs file workers over it for every tool call of this process until the `describe` ends;
 * `in-process` installs nothing. Run over `FILE_WORK` (test-file-workers.ts), which leaves `worker` out
 * where the sandbox cannot run, or fails then with `MANGO_REQUIRE_SANDBOX=1`.
 */
import { afterAll, beforeAll } from 'bun:test';
import { createFileWorkerPool, type FileWorkerPool } from '../../src/file-worker/file-worker-pool.ts';
import { fileWorkerOperations } from '../../src/file-worker/worker-file-operations.ts';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { installFileOperations } from '../../src/sandbox/host-file-operations.ts';
import { handToSandboxUser } from '../../src/sandbox/sandbox-file-owner.ts';
import { createTestSandbox } from '../sandbox/sandbox-host.ts';
import type { FileWork } from './test-file-workers.ts';

export interface ToolFileWork {
  /** The workers' pool, in `worker` mode; undefined in process. */
  readonly pool: FileWorkerPool | undefined;
  /** Gives a directory the test made to `userId`'s uid, as a server gives a workspace (worker mode only). */
  handTo(path: string, userId: string): Promise<void>;
}

export function useToolFileWork(mode: FileWork): ToolFileWork {
  const handle: { sandbox?: BubblewrapSandbox; pool?: FileWorkerPool; uninstall?: () => void } = {};
  beforeAll(() => {
    if (mode === 'in-process') return;
    handle.sandbox = createTestSandbox();
    const status = handle.sandbox.status();
    if (!status.available) throw new Error(`file workers cannot run here: ${status.reason}`);
    const sandbox = handle.sandbox;
    handle.pool = createFileWorkerPool({
      sandbox: () => sandbox,
      maxWorkers: 8,
      idleMs: 60_000,
      log: () => {},
    });
    handle.uninstall = installFileOperations(fileWorkerOperations(handle.pool));
  });
  afterAll(() => {
    handle.uninstall?.();
    handle.pool?.dispose();
    handle.sandbox?.dispose();
  });
  return {
    get pool() {
      return handle.pool;
    },
    async handTo(path, userId) {
      if (handle.sandbox !== undefined) await handToSandboxUser(path, userId, handle.sandbox);
    },
  };
}
