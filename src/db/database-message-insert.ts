/**
 * The one INSERT of a chat message, shared by the chat repository and the turn repository's fenced append.
 * The message's `seq` is the chat's next number, computed in the INSERT itself (the unique
 * `(chat_id, seq)` index backs it); a chat that does not exist gets no row; a message id that already
 * exists (a retried write) gets no second row.
 */
import type { SQL } from 'bun';
import { type ChatMessage, getMessageRole, type MessageRole } from '../chat/chat-repository.ts';
import type { ConversationItem } from '../contracts/conversation-item.ts';
import type { TurnFence } from '../turns/turn-fence.ts';

interface MessageRow {
  id: string;
  chat_id: string;
  seq: number | string | bigint;
  role: string;
  content_json: string;
  created_at: string;
  discarded_by?: string | null;
}

export function toMessage(row: MessageRow): ChatMessage {
  return {
    id: row.id,
    chatId: row.chat_id,
    seq: Number(row.seq),
    role: row.role as MessageRole,
    item: JSON.parse(row.content_json) as ConversationItem,
    createdAt: row.created_at,
    ...(row.discarded_by ? { discardedBy: row.discarded_by } : {}),
  };
}

export interface NewMessage {
  id: string;
  chatId: string;
  item: ConversationItem;
  createdAt: string;
}

/**
 * @param fence when given, the row is inserted only if the turn still holds it (same statement, so the
 * check and the write are one atomic step).
 * @returns the stored message; undefined when nothing was inserted (no such chat, the id exists, or the
 * fence no longer holds).
 */
export async function insertMessage(
  sql: SQL,
  message: NewMessage,
  fence?: TurnFence,
): Promise<ChatMessage | undefined> {
  const { id, chatId, createdAt } = message;
  const role = getMessageRole(message.item);
  const contentJson = JSON.stringify(message.item);
  const turnId = fence?.turnId ?? null;
  const rows: MessageRow[] = await sql`INSERT INTO messages (id, chat_id, seq, role, content_json, created_at)
    SELECT ${id}, ${chatId},
      (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE chat_id = ${chatId}),
      ${role}, ${contentJson}, ${createdAt}
    WHERE EXISTS (SELECT 1 FROM chats WHERE id = ${chatId})
      AND (CAST(${turnId} AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM chat_turns WHERE id = ${turnId}
        AND fencing_token = ${fence?.fencingToken ?? 0} AND state = 'running'
        AND (${fence?.requireLiveLease === false ? 0 : 1} = 0 OR lease_expires_at >= ${fence?.now ?? ''})))
    ON CONFLICT (id) DO NOTHING
    RETURNING id, chat_id, seq, role, content_json, created_at`;
  return rows[0] ? toMessage(rows[0]) : undefined;
}

export async function selectMessage(sql: SQL, id: string): Promise<ChatMessage | undefined> {
  const rows: MessageRow[] = await sql`SELECT id, chat_id, seq, role, content_json, created_at
    FROM messages WHERE id = ${id}`;
  return rows[0] ? toMessage(rows[0]) : undefined;
}

/** The chat's messages in `seq` order; with `discarded`, those a rerun replaced too. */
export async function listMessageRows(
  sql: SQL,
  chatId: string,
  options: { discarded: boolean } = { discarded: false },
): Promise<ChatMessage[]> {
  const rows: MessageRow[] = await sql`SELECT id, chat_id, seq, role, content_json, created_at, discarded_by
    FROM messages WHERE chat_id = ${chatId} AND (${options.discarded ? 1 : 0} = 1 OR discarded_by IS NULL)
    ORDER BY seq`;
  return rows.map(toMessage);
}
