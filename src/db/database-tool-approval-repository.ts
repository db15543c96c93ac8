/**
 * `ToolApprovalRepository` on the database (`tool_approvals`, migration 10).
 *
 * Guarantees:
 * - A question is inserted by one `INSERT … SELECT … WHERE` whose condition is the turn's fence
 *   (running, same token, lease unexpired at the writer's clock), so a turn that lost the chat records
 *   no new question.
 * - Every state change is one conditional `UPDATE … WHERE state = 'waiting'`; an answer's condition
 *   also holds the expiry and the turn's live lease. Each is atomic on both databases, so of two
 *   instances answering at once exactly one changes the row.
 */
import type { RememberedApprovalRule } from '../approvals/tool-approval-gate.ts';
import type {
  NewToolApproval,
  ToolApprovalAnswer,
  ToolApprovalRecord,
  ToolApprovalRepository,
  ToolApprovalState,
} from '../approvals/tool-approval-repository.ts';
import { type TurnFence, TurnFencedError } from '../turns/turn-fence.ts';
import type { Database } from './database.ts';

interface ApprovalRow {
  id: string;
  turn_id: string;
  chat_id: string;
  call_id: string;
  tool_name: string;
  arguments_json: string;
  reason: string;
  requested_at: string;
  expires_at: string;
  state: string;
  decision_reason: string | null;
  resolved_at: string | null;
  remembered_json: string | null;
}

function toRecord(row: ApprovalRow): ToolApprovalRecord {
  return {
    id: row.id,
    turnId: row.turn_id,
    chatId: row.chat_id,
    callId: row.call_id,
    name: row.tool_name,
    arguments: JSON.parse(row.arguments_json) as Record<string, unknown>,
    reason: row.reason,
    requestedAt: row.requested_at,
    expiresAt: row.expires_at,
    state: row.state as ToolApprovalState,
    decisionReason: row.decision_reason,
    resolvedAt: row.resolved_at,
    remembered:
      row.remembered_json === null ? null : (JSON.parse(row.remembered_json) as RememberedApprovalRule),
  };
}

export class DatabaseToolApprovalRepository implements ToolApprovalRepository {
  readonly #database: Database;

  constructor(database: Database) {
    this.#database = database;
  }

  async insertApproval(fence: TurnFence, approval: NewToolApproval): Promise<void> {
    const live = fence.requireLiveLease === false ? 0 : 1;
    const rows = await this.#database.sql`INSERT INTO tool_approvals (id, turn_id, chat_id, call_id,
        tool_name, arguments_json, reason, requested_at, expires_at, state)
      SELECT ${approval.id}, ${approval.turnId}, ${approval.chatId}, ${approval.callId}, ${approval.name},
        ${JSON.stringify(approval.arguments)}, ${approval.reason}, ${approval.requestedAt},
        ${approval.expiresAt}, 'waiting'
      WHERE EXISTS (SELECT 1 FROM chat_turns WHERE id = ${fence.turnId}
        AND fencing_token = ${fence.fencingToken} AND state = 'running'
        AND (${live} = 0 OR lease_expires_at >= ${fence.now}))
      RETURNING id`;
    if (rows.length === 0) throw new TurnFencedError();
  }

  async getApproval(id: string): Promise<ToolApprovalRecord | undefined> {
    const rows: ApprovalRow[] = await this.#database.sql`SELECT * FROM tool_approvals WHERE id = ${id}`;
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async findApproval(chatId: string, callId: string): Promise<ToolApprovalRecord | undefined> {
    const rows: ApprovalRow[] = await this.#database.sql`SELECT a.* FROM tool_approvals a
      WHERE a.chat_id = ${chatId} AND a.call_id = ${callId}
        AND a.turn_id = (SELECT id FROM chat_turns WHERE chat_id = ${chatId}
          ORDER BY fencing_token DESC LIMIT 1)
      ORDER BY CASE WHEN a.state = 'waiting' THEN 0 ELSE 1 END, a.requested_at DESC, a.id DESC LIMIT 1`;
    return rows[0] ? toRecord(rows[0]) : undefined;
  }

  async listWaiting(turnId: string): Promise<ToolApprovalRecord[]> {
    const rows: ApprovalRow[] = await this.#database.sql`SELECT * FROM tool_approvals
      WHERE turn_id = ${turnId} AND state = 'waiting' ORDER BY requested_at, id`;
    return rows.map(toRecord);
  }

  async answerApproval(id: string, answer: ToolApprovalAnswer): Promise<boolean> {
    const rows = await this.#database.sql`UPDATE tool_approvals SET state = ${answer.decision},
        decision_reason = ${answer.reason ?? null}, resolved_at = ${answer.now},
        remembered_json = ${answer.remembered === undefined ? null : JSON.stringify(answer.remembered)}
      WHERE id = ${id} AND state = 'waiting' AND expires_at > ${answer.now}
        AND EXISTS (SELECT 1 FROM chat_turns WHERE chat_turns.id = tool_approvals.turn_id
          AND chat_turns.state = 'running' AND chat_turns.lease_expires_at >= ${answer.now})
      RETURNING id`;
    return rows.length > 0;
  }

  async closeApproval(
    id: string,
    state: 'timed_out' | 'cancelled' | 'interrupted',
    now: string,
  ): Promise<boolean> {
    const rows = await this.#database.sql`UPDATE tool_approvals SET state = ${state}, resolved_at = ${now}
      WHERE id = ${id} AND state = 'waiting' RETURNING id`;
    return rows.length > 0;
  }
}
