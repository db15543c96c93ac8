/**
 * `ToolApprovalRepository` in memory, for one process (tests, a server without a database), checked against
 * the in-memory turn repository it was built with. Each method runs without an await between its check and
 * its write, so it is atomic; the rules are those of the contract in `tool-approval-repository.ts`.
 */
import type { InMemoryTurnRepository } from '../turns/in-memory-turn-repository.ts';
import { type TurnFence, TurnFencedError } from '../turns/turn-fence.ts';
import type {
  NewToolApproval,
  ToolApprovalAnswer,
  ToolApprovalRecord,
  ToolApprovalRepository,
} from './tool-approval-repository.ts';

export class InMemoryToolApprovalRepository implements ToolApprovalRepository {
  readonly #turns: InMemoryTurnRepository;
  readonly #approvals = new Map<string, ToolApprovalRecord>();

  constructor(turns: InMemoryTurnRepository) {
    this.#turns = turns;
  }

  async insertApproval(fence: TurnFence, approval: NewToolApproval): Promise<void> {
    if (!this.#turns.holdsFence(fence)) throw new TurnFencedError();
    this.#approvals.set(approval.id, {
      ...structuredClone(approval),
      state: 'waiting',
      decisionReason: null,
      resolvedAt: null,
      remembered: null,
    });
  }

  async getApproval(id: string): Promise<ToolApprovalRecord | undefined> {
    const record = this.#approvals.get(id);
    return record ? structuredClone(record) : undefined;
  }

  async findApproval(chatId: string, callId: string): Promise<ToolApprovalRecord | undefined> {
    const turnId = this.#turns.latestTurnId(chatId);
    const matching = [...this.#approvals.values()].filter(
      (record) => record.chatId === chatId && record.callId === callId && record.turnId === turnId,
    );
    // The database's order: waiting first, then the newest request (ties by id).
    const rank = (record: ToolApprovalRecord) =>
      [record.state === 'waiting' ? 0 : 1, record.requestedAt, record.id] as const;
    matching.sort((left, right) => {
      const [a, b] = [rank(left), rank(right)];
      if (a[0] !== b[0]) return a[0] - b[0];
      if (a[1] !== b[1]) return a[1] < b[1] ? 1 : -1;
      return a[2] < b[2] ? 1 : a[2] > b[2] ? -1 : 0;
    });
    const chosen = matching[0];
    return chosen ? structuredClone(chosen) : undefined;
  }

  async listWaiting(turnId: string): Promise<ToolApprovalRecord[]> {
    return structuredClone(
      [...this.#approvals.values()].filter(
        (record) => record.turnId === turnId && record.state === 'waiting',
      ),
    );
  }

  async answerApproval(id: string, answer: ToolApprovalAnswer): Promise<boolean> {
    const record = this.#approvals.get(id);
    if (record?.state !== 'waiting' || record.expiresAt <= answer.now) return false;
    if (!this.#turns.isLive(record.turnId, answer.now)) return false;
    Object.assign(record, {
      state: answer.decision,
      decisionReason: answer.reason ?? null,
      resolvedAt: answer.now,
      remembered: answer.remembered ?? null,
    });
    return true;
  }

  async closeApproval(
    id: string,
    state: 'timed_out' | 'cancelled' | 'interrupted',
    now: string,
  ): Promise<boolean> {
    const record = this.#approvals.get(id);
    if (record?.state !== 'waiting') return false;
    Object.assign(record, { state, resolvedAt: now });
    return true;
  }

  /** The chat was deleted: its questions go with it. */
  deleteChatApprovals(chatId: string): void {
    for (const [id, record] of this.#approvals) if (record.chatId === chatId) this.#approvals.delete(id);
  }
}
