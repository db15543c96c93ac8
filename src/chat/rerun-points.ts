/**
 * Where each kind of rerun replaces a chat (docs/chats.md, "Reruns"), as `FindRerunPoint`s the chat
 * service checks before the claim and the turn again once the chat is claimed: regenerate and retry
 * from the last user message, edit from the named one. Every refusal is a `ChatError` saying why.
 */
import type { TurnRecord } from '../turns/turn-repository.ts';
import { ChatError } from './chat-errors.ts';
import type { ChatMessage } from './chat-message.ts';
import type { FindRerunPoint } from './prepare-chat-turn.ts';
import { invalid } from './storable-text.ts';

/** Regenerate (and retry): the chat's last user message, run again as it is. */
export function lastUserMessagePoint(chatId: string): FindRerunPoint {
  return (messages) => {
    const last = messages.findLast((row) => row.item.type === 'user_text');
    if (last?.item.type !== 'user_text') {
      throw new ChatError('nothing_to_rerun', `Chat ${chatId} has no message to answer again.`);
    }
    return {
      seq: last.seq,
      createdAt: last.createdAt,
      text: last.item.text,
      attachments: last.item.attachments,
    };
  };
}

/** Edit: the user's message `messageId`, run again as `text` with the files it had attached. */
export function editedMessagePoint(chatId: string, messageId: string, text: string): FindRerunPoint {
  return (messages) => {
    const target = messages.find((row) => row.id === messageId);
    if (!target) {
      throw new ChatError('not_found', `Chat ${chatId} has no message ${messageId} (or it was replaced).`);
    }
    if (target.item.type !== 'user_text') {
      throw invalid(`Only the user's messages can be edited; message ${messageId} is a ${target.item.type}.`);
    }
    return { seq: target.seq, createdAt: target.createdAt, text, attachments: target.item.attachments };
  };
}

/**
 * Retry is for a turn that failed (`error`, or `lost` with its instance) after its message was kept: a
 * chat whose last turn did not fail is refused, so a retry never replaces a good answer unasked, and
 * so is one whose failed turn kept no message (it never started), which would rerun an older message.
 * @throws ChatError `nothing_to_rerun`.
 */
export function requireFailedTurn(
  chatId: string,
  latest: TurnRecord | undefined,
  messages: readonly ChatMessage[],
): void {
  if (latest?.state !== 'error' && latest?.state !== 'lost') {
    const what = latest === undefined ? 'never ran a turn' : `last turn is ${latest.state}`;
    throw new ChatError(
      'nothing_to_rerun',
      `Only a turn that failed (error or lost) can be retried; chat ${chatId}'s ${what}. Regenerate to answer it again anyway.`,
    );
  }
  if (!messages.some((row) => row.seq > latest.messageSeqAtStart)) {
    throw new ChatError(
      'nothing_to_rerun',
      `Chat ${chatId}'s last turn failed before its message was kept (${latest.error?.message ?? 'no reason recorded'}); send the message again.`,
    );
  }
}
