/**
 * A tool context for a person acting on their own files outside any tool call (the files routes, a
 * message's attachments): the user's reachable set, no tool settings (a user's `allowedPaths` narrow
 * what a model may reach, not what the user may), and a ledger of its own, since nothing done through
 * it is an observation a chat's tools may rely on. The shared resolver and verified opens take it.
 */
import type { ReachableSet } from './access/reachable-set.ts';
import { InMemoryFreshnessLedger } from './freshness-ledger.ts';
import type { ToolContext } from './types.ts';

export function userFileContext(userId: string, reachable: ReachableSet, now: () => number): ToolContext {
  return {
    userId,
    chatId: undefined,
    reachable,
    settings: { enabled: true, parameters: {} },
    signal: new AbortController().signal,
    ledger: new InMemoryFreshnessLedger(),
    onProgress: () => {},
    now,
    dataDirectory: undefined,
  };
}
