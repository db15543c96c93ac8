/**
 * The file workers a test chat's calls go through in `worker` mode (call-tool.ts): one real bubblewrap
 * sandbox of this process (users' uids from testSandboxUsers, a uid per user name) and a pool over it,
 * made at the first call that needs them and stopped by `stopChatFileWorkers` (after each file's tests:
 * `describeFileWork`). During such a call the workers are the process's file operations, and a call
 * whose reachable set a worker would not serve (operator mode) fails instead of doing its work here:
 * a test in `worker` mode never passes in process.
 *
 * The worker runs as the user's uid, not root: `shareWithSandboxUser` gives a test's own directories
 * to that uid, as what the user made themselves would be.
 */
import { afterAll, describe } from 'bun:test';
import { chmodSync, lchownSync, lstatSync, readdirSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createFileWorkerPool, type FileWorkerPool } from '../../src/file-worker/file-worker-pool.ts';
import { createWorkerFileOperations } from '../../src/file-worker/worker-file-operations.ts';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { FILE_WORKER_DIRECTORY } from '../../src/sandbox/file-worker-sandbox.ts';
import { installFileOperations } from '../../src/sandbox/host-file-operations.ts';
import { isPathInside } from '../../src/tools/access/reachable-set.ts';
import { createTestSandbox } from '../sandbox/sandbox-host.ts';
import { FILE_WORK, type FileWork } from './test-file-workers.ts';

/** The user a test chat calls as. */
export const CHAT_USER = 'user-1';

interface ChatFileWorkers {
  sandbox: BubblewrapSandbox;
  pool: FileWorkerPool;
  /** Lines the workers wrote to stderr. */
  logged: string[];
}

let current: ChatFileWorkers | undefined;

/** The process's test workers, made when there are none. */
export function chatFileWorkers(): ChatFileWorkers {
  if (current === undefined) {
    const sandbox = createTestSandbox();
    const status = sandbox.status();
    if (!status.available) {
      sandbox.dispose();
      throw new Error(`file work in a worker cannot run here: ${status.reason}`);
    }
    const logged: string[] = [];
    const pool = createFileWorkerPool({
      sandbox: () => sandbox,
      maxWorkers: 8,
      idleMs: 60_000,
      log: (line) => logged.push(line),
    });
    current = { sandbox, pool, logged };
  }
  return current;
}

/** Stops the workers and their sandbox (the next call in `worker` mode makes new ones). */
export function stopChatFileWorkers(): void {
  current?.pool.dispose();
  current?.sandbox.dispose();
  current = undefined;
}

/** Runs `call` with every file operation of the process done by the test workers. */
export async function throughChatFileWorkers<T>(call: () => Promise<T>): Promise<T> {
  const { pool } = chatFileWorkers();
  const uninstall = installFileOperations((context) => {
    if (context.reachable.roots.some((root) => isPathInside(FILE_WORKER_DIRECTORY, root.path))) {
      throw new Error('a call in worker mode has an operator reachable set, which no worker serves');
    }
    return createWorkerFileOperations(context, pool);
  });
  try {
    return await call();
  } finally {
    uninstall();
  }
}

/**
 * In `worker` mode, gives `path` and everything under it (not following links) to `userId`'s sandbox
 * uid, and makes the test's own directories above it (those inside the temp directory, which mkdtemp
 * makes 0700) passable by it, as bubblewrap opens each mount source as that uid; in process the files
 * stay as the test made them.
 */
export async function shareWithSandboxUser(
  path: string,
  fileWork: FileWork,
  userId = CHAT_USER,
): Promise<void> {
  if (fileWork === 'in-process') return;
  const owner = await chatFileWorkers().sandbox.fileOwner?.(userId);
  if (owner === undefined) throw new Error('the test sandbox gives users no uid of their own');
  const give = (at: string) => {
    lchownSync(at, owner.uid, owner.gid);
    if (lstatSync(at).isDirectory()) for (const name of readdirSync(at)) give(join(at, name));
  };
  give(path);
  const temp = realpathSync(tmpdir());
  for (let above = dirname(path); isPathInside(above, temp) && above !== temp; above = dirname(above)) {
    chmodSync(above, lstatSync(above).mode | 0o111);
  }
}

/** `describe.each` over the modes file work runs in here, the workers stopped after the file's tests. */
export function describeFileWork(name: string, body: (fileWork: FileWork) => void): void {
  describe.each(FILE_WORK)(`${name} (file work %s)`, (fileWork) => {
    afterAll(() => stopChatFileWorkers());
    body(fileWork);
  });
}
