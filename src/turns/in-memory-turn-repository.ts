/**
 * `TurnRepository` in memory, for one process (tests, a server without a database). Each method runs
 * without an await between its check and its write, so it is atomic; the rules are those of the
 * contract in `turn-repository.ts`, the user limit counted over the chats it claimed turns of. Messages go
 * to the chat repository it was built with; in memory a write cannot fail halfway, so the caller's
 * message id is not needed to make retries safe.
 */
import type { ChatMessage, ChatRepository } from '../chat/chat-repository.ts';
import type { ConversationItem } from '../contracts/conversation-item.ts';
import { type TurnFence, TurnFencedError } from './turn-fence.ts';
import type {
  ClaimTurnInput,
  FinishTurnInput,
  StoredTurnEvent,
  TurnRecord,
  TurnRepository,
} from './turn-repository.ts';
import { UserTurnLimitError } from './user-turn-limit-error.ts';

type MessageSink = Pick<ChatRepository, 'getChat' | 'appendMessage' | 'listMessageHistory'> & {
  discardMessages(chatId: string, fromSeq: number, turnId: string): void;
};

export class InMemoryTurnRepository implements TurnRepository {
  readonly #chats: MessageSink;
  readonly #turns = new Map<string, TurnRecord>();
  readonly #events = new Map<string, StoredTurnEvent[]>();
  /** Turns a rerun replaced. */
  readonly #discarded = new Set<string>();
  /** Each claimed chat's owner, for the user limit (a turn record names only its chat). */
  readonly #owners = new Map<string, string>();

  constructor(chats: MessageSink) {
    this.#chats = chats;
  }

  #ofChat(chatId: string): TurnRecord[] {
    return [...this.#turns.values()].filter((turn) => turn.chatId === chatId);
  }

  #holds(fence: TurnFence): TurnRecord | undefined {
    const turn = this.#turns.get(fence.turnId);
    const live =
      turn?.state === 'running' &&
      turn.fencingToken === fence.fencingToken &&
      (fence.requireLiveLease === false ||
        (turn.leaseExpiresAt !== null && turn.leaseExpiresAt >= fence.now));
    return live ? turn : undefined;
  }

  #endLost(chatId: string, now: string, reason: string, deadTurnId: string | undefined): boolean {
    let ended = false;
    for (const turn of this.#ofChat(chatId)) {
      const lapsed = turn.leaseExpiresAt !== null && turn.leaseExpiresAt < now;
      if (turn.state === 'running' && (lapsed || turn.id === deadTurnId)) {
        Object.assign(turn, {
          state: 'lost',
          endedAt: now,
          leaseExpiresAt: null,
          error: { message: reason },
        });
        ended = true;
      }
    }
    return ended;
  }

  async claimTurn(input: ClaimTurnInput): Promise<TurnRecord | undefined> {
    const [chat, messages] = await Promise.all([
      this.#chats.getChat(input.chatId),
      this.#chats.listMessageHistory(input.chatId),
    ]);
    if (!chat) return undefined;
    const reason = 'The instance running this turn stopped renewing its lease; the turn was taken over.';
    this.#endLost(input.chatId, input.now, reason, input.deadTurnId);
    const turns = this.#ofChat(input.chatId);
    if (turns.some((turn) => turn.state === 'running')) return undefined;
    const limit = input.userTurnLimit;
    if (limit !== undefined && this.#liveTurnsOf(chat.userId, input.now) >= limit) {
      throw new UserTurnLimitError(limit);
    }
    this.#owners.set(input.chatId, chat.userId);
    const record: TurnRecord = {
      id: input.turnId,
      chatId: input.chatId,
      fencingToken: Math.max(0, ...turns.map((turn) => turn.fencingToken)) + 1,
      holder: input.holder,
      state: 'running',
      leaseExpiresAt: input.leaseExpiresAt,
      cancelRequestedAt: null,
      startedAt: input.now,
      endedAt: null,
      messageSeqAtStart: messages.at(-1)?.seq ?? 0,
      usage: null,
      durations: null,
      progress: null,
      error: null,
    };
    for (const turn of turns) this.#events.delete(turn.id);
    this.#turns.set(record.id, record);
    this.#events.set(record.id, []);
    return structuredClone(record);
  }

  /** The user's turns that run with a lease unexpired at `now`, in any chat. */
  #liveTurnsOf(userId: string, now: string): number {
    let count = 0;
    for (const turn of this.#turns.values()) {
      const live = turn.state === 'running' && turn.leaseExpiresAt !== null && turn.leaseExpiresAt >= now;
      if (live && this.#owners.get(turn.chatId) === userId) count += 1;
    }
    return count;
  }

  async renewTurn(fence: TurnFence, leaseExpiresAt: string): Promise<boolean> {
    const turn = this.#holds(fence);
    if (turn) turn.leaseExpiresAt = leaseExpiresAt;
    return turn !== undefined;
  }

  async appendTurnEvents(fence: TurnFence, events: readonly StoredTurnEvent[]): Promise<void> {
    if (!this.#holds(fence)) throw new TurnFencedError();
    const stored = this.#events.get(fence.turnId) ?? [];
    const last = stored.at(-1)?.seq ?? 0;
    for (const event of events) if (event.seq > last) stored.push(structuredClone(event));
    this.#events.set(fence.turnId, stored);
  }

  async appendTurnMessage(
    fence: TurnFence,
    chatId: string,
    _messageId: string,
    item: ConversationItem,
    replaceFromSeq?: number,
  ): Promise<ChatMessage> {
    if (!this.#holds(fence)) throw new TurnFencedError();
    if (replaceFromSeq !== undefined) {
      this.#chats.discardMessages(chatId, replaceFromSeq, fence.turnId);
      for (const turn of this.#ofChat(chatId)) {
        const later = turn.messageSeqAtStart >= replaceFromSeq - 1;
        if (turn.id !== fence.turnId && later) this.#discarded.add(turn.id);
      }
    }
    return this.#chats.appendMessage(chatId, item, fence.now);
  }

  async finishTurn(fence: TurnFence, outcome: FinishTurnInput): Promise<boolean> {
    const turn = this.#turns.get(fence.turnId);
    if (turn?.state !== 'running' || turn.fencingToken !== fence.fencingToken) return false;
    Object.assign(turn, {
      state: outcome.state,
      endedAt: outcome.endedAt,
      leaseExpiresAt: null,
      usage: outcome.usage ?? null,
      durations: outcome.durations ?? null,
      progress: outcome.progress ?? null,
      error: outcome.error ?? null,
    });
    return true;
  }

  async markTurnLost(chatId: string, now: string, reason: string, deadTurnId?: string): Promise<boolean> {
    return this.#endLost(chatId, now, reason, deadTurnId);
  }

  async listTurns(chatId: string): Promise<TurnRecord[]> {
    const turns = this.#ofChat(chatId)
      .filter((turn) => !this.#discarded.has(turn.id))
      .sort((left, right) => left.fencingToken - right.fencingToken);
    return structuredClone(turns);
  }

  async latestTurn(chatId: string): Promise<TurnRecord | undefined> {
    const turns = this.#ofChat(chatId).sort((left, right) => right.fencingToken - left.fencingToken);
    return turns[0] ? structuredClone(turns[0]) : undefined;
  }

  async getTurn(turnId: string): Promise<TurnRecord | undefined> {
    const turn = this.#turns.get(turnId);
    return turn ? structuredClone(turn) : undefined;
  }

  async listTurnEvents(turnId: string, afterSeq: number, limit: number): Promise<StoredTurnEvent[]> {
    const events = this.#events.get(turnId) ?? [];
    return structuredClone(events.filter((event) => event.seq > afterSeq).slice(0, limit));
  }

  async turnEventsEnd(turnId: string): Promise<{ seq: number; endOffset: number }> {
    const last = this.#events.get(turnId)?.at(-1);
    return { seq: last?.seq ?? 0, endOffset: last?.endOffset ?? 0 };
  }

  async requestTurnCancel(turnId: string, now: string): Promise<boolean> {
    const turn = this.#turns.get(turnId);
    const live = turn?.state === 'running' && turn.leaseExpiresAt !== null && turn.leaseExpiresAt >= now;
    if (live) turn.cancelRequestedAt = now;
    return live;
  }

  /** Synchronous: whether the fence holds now (for the approval repository, atomic with its own write). */
  holdsFence(fence: TurnFence): boolean {
    return this.#holds(fence) !== undefined;
  }

  /** Synchronous: whether the turn runs with a lease unexpired at `now`. */
  isLive(turnId: string, now: string): boolean {
    const turn = this.#turns.get(turnId);
    return turn?.state === 'running' && turn.leaseExpiresAt !== null && turn.leaseExpiresAt >= now;
  }

  /** The chat's newest turn id, synchronously. */
  latestTurnId(chatId: string): string | undefined {
    return this.#ofChat(chatId).sort((left, right) => right.fencingToken - left.fencingToken)[0]?.id;
  }

  /** The chat was deleted: its turns go with it. */
  deleteChatTurns(chatId: string): void {
    for (const turn of this.#ofChat(chatId)) {
      this.#turns.delete(turn.id);
      this.#events.delete(turn.id);
      this.#discarded.delete(turn.id);
    }
    this.#owners.delete(chatId);
  }
}
