/**
 * Test helper: file workers over a real bubblewrap sandbox (tests/sandbox/sandbox-host.ts), installed
 * as this process's file operations for the tests of one `describe`, and a chat of alice's whose tool
 * calls go through them.
 */
import { afterAll, beforeAll } from 'bun:test';
import { createFileWorkerPool, type FileWorkerPool } from '../../src/file-worker/file-worker-pool.ts';
import { fileWorkerOperations } from '../../src/file-worker/worker-file-operations.ts';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { installFileOperations } from '../../src/sandbox/host-file-operations.ts';
import type { ReachableSet } from '../../src/tools/access/reachable-set.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { InMemoryFreshnessLedger } from '../../src/tools/freshness-ledger.ts';
import type { ToolExecutionResult } from '../../src/tools/types.ts';
import '../../src/tools/builtin/register-builtin-tools.ts';

/** A pool over `sandbox()`, installed for every tool call of this process until the `describe` ends. */
export function useFileWorkers(
  sandbox: () => BubblewrapSandbox,
  options: { idleMs?: number; maxWorkers?: number; now?: () => number } = {},
): { readonly pool: FileWorkerPool; readonly logged: string[] } {
  const handle: { pool?: FileWorkerPool; uninstall?: () => void } = {};
  const logged: string[] = [];
  beforeAll(() => {
    handle.pool = createFileWorkerPool({
      sandbox,
      maxWorkers: options.maxWorkers ?? 8,
      idleMs: options.idleMs ?? 60_000,
      now: options.now,
      log: (line) => logged.push(line),
    });
    handle.uninstall = installFileOperations(fileWorkerOperations(handle.pool));
  });
  afterAll(() => {
    handle.uninstall?.();
    handle.pool?.dispose();
  });
  return {
    get pool() {
      if (!handle.pool) throw new Error('the pool is made before the tests run');
      return handle.pool;
    },
    logged,
  };
}

/** A chat of `userId` over `reachable`: one ledger across its calls. */
export function workerChat(
  userId: string,
  reachable: () => ReachableSet,
  parameters?: Record<string, unknown>,
) {
  const ledger = new InMemoryFreshnessLedger();
  return {
    ledger,
    call(name: string, args: Record<string, unknown>): Promise<ToolExecutionResult> {
      return executeTool(
        name,
        args,
        { userId, chatId: 'chat-1', reachable: reachable(), ledger },
        parameters ? { parameters } : undefined,
      );
    },
  };
}
