/** Calls a registered tool through executeTool, as the chat loop does, with a shared ledger per chat. */
import { executeTool } from '../../src/tools/execution.ts';
import type { FreshnessLedger } from '../../src/tools/freshness-ledger.ts';
import { InMemoryFreshnessLedger } from '../../src/tools/freshness-ledger.ts';
import type { ToolExecutionResult } from '../../src/tools/types.ts';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { makeReachableSet, type ReachableFixture } from './tool-context.ts';

export interface ChatFixture extends ReachableFixture {
  ledger?: FreshnessLedger;
  parameters?: Record<string, unknown>;
  signal?: AbortSignal;
  now?: () => number;
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
      return executeTool(
        name,
        args,
        {
          userId: 'user-1',
          chatId: 'chat-1',
          reachable: makeReachableSet(fixture),
          ledger,
          signal: fixture.signal,
          ...(fixture.now === undefined ? {} : { now: fixture.now }),
        },
        parameters ? { parameters } : undefined,
      );
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
