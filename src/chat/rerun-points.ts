/**
 * Where each kind of rerun replaces a chat (docs/chats.md, "Reruns"), as `FindRerunPoint`s the chat
 * service checks before the claim and the turn again once the chat is claimed: regenerate and retry
 * from the last user message, edit from the named one. Every refusal is a `ChatError` saying why.
 */
import type { TurnRecord } from '../turns/turn-repository.ts';
import { ChatError } from './chat-errors.ts';
import type { FindRerunPoint } from './prepare-chat-turn.ts';
import { invalid } from './storable-text.ts';

/** Regenerate (and retry): the chat's last user message, run again as it is. */
export function lastUserMessagePoint(chatId: string): FindRerunPoint {
  return (messages) => {
    const last = messages.findLast((row) => row.item.type === 'user_text');
    if (last?.item.type !== 'user_text') {
      throw new ChatError('nothing_to_rerun', `Chat ${chatId} has no message to answer again.`);
    }
    return { seq: last.seq, createdAt: last.createdAt, text: last.item.text };
  };
}

/** Edit: the user's message `messageId`, run again as `text`. */
export function editedMessagePoint(chatId: string, messageId: string, text: string): FindRerunPoint {
  return (messages) => {
    const target = messages.find((row) => row.id === messageId);
    if (!target) {
      throw new ChatError('not_found', `Chat ${chatId} has no message ${messageId} (or it was replaced).`);
    }
    if (target.item.type !== 'user_text') {
      throw invalid(`Only the user's messages can be edited; message ${messageId} is a ${target.item.type}.`);
    }
    return { seq: target.seq, createdAt: target.createdAt, text };
  };
}

/**
 * Retry is for a turn that failed (`error`, or `lost` with its instance): a chat whose last turn did
 * not is refused, so a retry never replaces a good answer unasked.
 * @throws ChatError `nothing_to_rerun`.
 */
export function requireFailedTurn(chatId: string, latest: TurnRecord | undefined): void {
  if (latest?.state === 'error' || latest?.state === 'lost') return;
  const what = latest === undefined ? 'never ran a turn' : `last turn is ${latest.state}`;
  throw new ChatError(
    'nothing_to_rerun',
    `Only a turn that failed (error or lost) can be retried; chat ${chatId}'s ${what}. Regenerate to answer it again anyway.`,
  );
}
