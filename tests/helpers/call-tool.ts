/**
 * Calls a registered tool through executeTool, as the chat loop does, with a shared ledger per chat;
 * with `fileWork: 'worker'` the file tools do their work in a real file worker (chat-file-workers.ts).
 */
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { executeTool } from '../../src/tools/execution.ts';
import type { FreshnessLedger } from '../../src/tools/freshness-ledger.ts';
import { InMemoryFreshnessLedger } from '../../src/tools/freshness-ledger.ts';
import type { ToolExecutionResult } from '../../src/tools/types.ts';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { CHAT_USER, throughChatFileWorkers } from './chat-file-workers.ts';
import type { FileWork } from './test-file-workers.ts';
import { makeReachableSet, type ReachableFixture } from './tool-context.ts';

/** The tools whose file work runs in the user's file worker. */
export const FILE_WORKER_TOOLS: readonly string[] = [
  'read_file',
  'write_file',
  'edit_file',
  'list_directory',
  'glob',
  'grep',
];

export interface ChatFixture extends ReachableFixture {
  ledger?: FreshnessLedger;
  parameters?: Record<string, unknown>;
  signal?: AbortSignal;
  now?: () => number;
  /**
   * Where the calls of FILE_WORKER_TOOLS do their file work; in process when omitted. In `worker` mode
   * a fixture of operator mode (no workspaces, not confined) becomes one personal workspace at the
   * working directory, the narrowest set a user's worker serves.
   */
  fileWork?: FileWork;
}

/** The reachable set of `fixture` in its file work mode. */
function chatReachableSet(fixture: ChatFixture) {
  if (fixture.fileWork !== 'worker' || fixture.workspaces !== undefined || fixture.confined) {
    return makeReachableSet(fixture);
  }
  const workingDirectory = fixture.workingDirectory ?? realpathSync(tmpdir());
  return makeReachableSet({
    ...fixture,
    workspaces: [{ path: workingDirectory, access: 'read-write', kind: 'personal' }],
  });
}

/** A chat: one ledger across calls, like a real conversation. */
export function createChat(fixture: ChatFixture = {}) {
  const ledger = fixture.ledger ?? new InMemoryFreshnessLedger();
  return {
    ledger,
    call(
      name: string,
      args: Record<string, unknown>,
      parameters = fixture.parameters,
    ): Promise<ToolExecutionResult> {
      const run = () =>
        executeTool(
          name,
          args,
          {
            userId: CHAT_USER,
            chatId: 'chat-1',
            reachable: chatReachableSet(fixture),
            ledger,
            signal: fixture.signal,
            ...(fixture.now === undefined ? {} : { now: fixture.now }),
          },
          parameters ? { parameters } : undefined,
        );
      return fixture.fileWork === 'worker' && FILE_WORKER_TOOLS.includes(name)
        ? throughChatFileWorkers(run)
        : run();
    },
  };
}

/** The result of a call that must succeed. */
export function expectOk(outcome: ToolExecutionResult): Record<string, unknown> {
  if (!outcome.ok)
    throw new Error(`expected success, got ${outcome.error.classification}: ${outcome.error.message}`);
  return outcome.result as Record<string, unknown>;
}

/** The error of a call that must fail. */
export function expectFailure(outcome: ToolExecutionResult): { classification: string; message: string } {
  if (outcome.ok) throw new Error(`expected failure, got ${JSON.stringify(outcome.result).slice(0, 300)}`);
  return outcome.error;
}
