/** One stored conversation item of a chat, and who produced it. */
import type { ConversationItem } from '../contracts/conversation-item.ts';

/** The `role` column: who produced the item. */
export type MessageRole = 'user' | 'assistant' | 'tool';

export interface ChatMessage {
  id: string;
  chatId: string;
  /** 1, 2, 3… within the chat, in history order. */
  seq: number;
  role: MessageRole;
  item: ConversationItem;
  /** ISO 8601. */
  createdAt: string;
  /**
   * Set only on a message a rerun replaced (regenerate, edit, retry): the id of the turn that replaced
   * it. Such a message is no longer part of the chat; it is kept so the history can say which of its
   * tool calls ran (`rerun-history.ts`).
   */
  discardedBy?: string;
}

export function getMessageRole(item: ConversationItem): MessageRole {
  switch (item.type) {
    case 'user_text':
      return 'user';
    case 'tool_result':
      return 'tool';
    default:
      return 'assistant';
  }
}
