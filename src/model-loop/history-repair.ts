/**
 * Makes a persisted history consistent before it is replayed to a provider, so a crash mid-turn
 * loses at most the call in flight and the next turn replays a consistent history. Pure.
 *
 * Rules, applied in one pass:
 * - A tool call without a result gets a synthetic failed result, placed right after the run of tool
 *   calls and results it belongs to (the server stopped: its outcome, and any side effect, is unknown).
 * - A tool result with no earlier unanswered call of the same id (orphan or duplicate) is dropped.
 * - A provider item not followed by assistant output (text or a tool call) of the same response is
 *   dropped: providers reject e.g. a reasoning item without the item it preceded.
 */
import type { ConversationItem } from '../contracts/conversation-item.ts';
import { serializeToolOutput } from '../tools/output/result-budget.ts';

export const INTERRUPTED_CALL_MESSAGE =
  'The server stopped before this call finished, so its outcome is unknown (it may or may not have ' +
  'taken effect). Check the current state before repeating it.';

type ToolCallItem = Extract<ConversationItem, { type: 'tool_call' }>;

function interruptedResult(call: ToolCallItem): ConversationItem {
  const { output } = serializeToolOutput({
    ok: false,
    error: { classification: 'execution_error', message: INTERRUPTED_CALL_MESSAGE },
  });
  return { type: 'tool_result', callId: call.callId, name: call.name, ok: false, output };
}

/** Returns `items` unchanged in content when already consistent, else a repaired copy. */
export function repairHistory(items: readonly ConversationItem[]): ConversationItem[] {
  const repaired: ConversationItem[] = [];
  let unanswered: ToolCallItem[] = [];
  const flushUnanswered = () => {
    for (const call of unanswered) repaired.push(interruptedResult(call));
    unanswered = [];
  };
  for (const [index, item] of items.entries()) {
    switch (item.type) {
      case 'tool_call':
        // A call after results starts a new response: close the previous run first.
        if (repaired[repaired.length - 1]?.type === 'tool_result') flushUnanswered();
        unanswered.push(item);
        repaired.push(item);
        break;
      case 'tool_result': {
        const position = unanswered.findIndex((call) => call.callId === item.callId);
        if (position === -1) break;
        unanswered.splice(position, 1);
        repaired.push(item);
        break;
      }
      case 'provider_item': {
        flushUnanswered();
        const next = items.slice(index + 1).find((later) => later.type !== 'provider_item');
        if (next?.type === 'assistant_text' || next?.type === 'tool_call') repaired.push(item);
        break;
      }
      default:
        flushUnanswered();
        repaired.push(item);
    }
  }
  flushUnanswered();
  return repaired;
}
