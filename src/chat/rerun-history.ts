/**
 * The history a provider is sent, from a chat's stored messages, those a rerun replaced included
 * (docs/chats.md, "Reruns"). Guarantees:
 * - A replaced message is never sent as itself.
 * - The tool calls of a replaced part ran, and their effects (files written, commands run) were not
 *   undone: the first kept user message after that part tells the model which calls they were, so it
 *   does not act as if the files were as before. The note is part of what the model reads, never of
 *   the stored message, and every later turn's history carries it again.
 */
import type { ConversationItem } from '../contracts/conversation-item.ts';
import type { ChatMessage } from './chat-message.ts';

/** At most this many calls are named one by one; more are counted. */
const MAX_NAMED_CALLS = 30;
/** A call's arguments are shown up to this many characters. */
const MAX_ARGUMENT_CHARACTERS = 300;

interface ReplacedCall {
  name: string;
  arguments: string;
  ok: boolean | undefined;
}

function describeCall(call: ReplacedCall): string {
  const shown =
    call.arguments.length > MAX_ARGUMENT_CHARACTERS
      ? `${call.arguments.slice(0, MAX_ARGUMENT_CHARACTERS)}…`
      : call.arguments;
  const outcome =
    call.ok === undefined ? ' (no result recorded)' : call.ok ? '' : ' (it failed or was refused)';
  return `- ${call.name} ${shown || '{}'}${outcome}`;
}

/** The note put before a rerun's user message when the part it replaced called tools. */
export function rerunNote(calls: readonly ReplacedCall[]): string {
  const named = calls.slice(0, MAX_NAMED_CALLS).map(describeCall);
  if (calls.length > MAX_NAMED_CALLS) named.push(`- … and ${calls.length - MAX_NAMED_CALLS} more calls`);
  return [
    '[Note from Mango Tools, not written by the user: the conversation from this message on was replaced',
    '(the user regenerated the answer or edited the message). The replaced part made these tool calls;',
    'they ran, and their effects (files written, commands run) were not undone, so check the current',
    'state before relying on how things were:',
    ...named,
    ']',
  ].join('\n');
}

/** The items to send, oldest first: kept messages, each user message after a replaced part with its note. */
export function historyWithRerunNotes(
  messages: readonly Pick<ChatMessage, 'item' | 'discardedBy'>[],
): ConversationItem[] {
  const items: ConversationItem[] = [];
  let replaced = new Map<string, ReplacedCall>();
  for (const { item, discardedBy } of messages) {
    if (discardedBy !== undefined) {
      if (item.type === 'tool_call') {
        replaced.set(item.callId, { name: item.name, arguments: item.arguments, ok: undefined });
      } else if (item.type === 'tool_result') {
        const call = replaced.get(item.callId);
        if (call) call.ok = item.ok;
      }
      continue;
    }
    if (item.type === 'user_text' && replaced.size > 0) {
      items.push({ ...item, text: `${rerunNote([...replaced.values()])}\n\n${item.text}` });
      replaced = new Map();
      continue;
    }
    items.push(item);
  }
  return items;
}
