/**
 * Keeps a chat view current with turns it did not start (another tab, another device): while the view
 * runs no turn of its own it asks the server for the chat's current turn every
 * `TURN_POLL_MILLISECONDS`, and reports news with the reloaded chat: a running turn it has not shown,
 * or a turn that ended unseen. It stops once the view has left the document. `transcriptAt` is the
 * transcript a chat shows at load and after such news.
 */
import type { ApiClient, ChatWithMessages, CurrentTurn } from './api-client.ts';
import { applyPendingApprovals, type Transcript } from './transcript.ts';
import { transcriptFromHistory } from './transcript-from-history.ts';

/** How often a view that runs no turn asks whether another tab started one (within 2 s on one instance). */
export const TURN_POLL_MILLISECONDS = 1_500;

export interface TurnPollerOptions {
  api: ApiClient;
  chatId: string;
  /** True while the view streams a turn: it then does not ask. */
  busy: () => boolean;
  /** False once the view left the document: polling stops. */
  attached: () => boolean;
  news: (chat: ChatWithMessages, current: CurrentTurn) => void;
}

export interface TurnPoller {
  /** The newest turn the view has shown; only another id (or a running turn) is news. */
  know(turnId: string | undefined): void;
  /** Asks again after the interval. */
  schedule(): void;
  /** Asks now. */
  check(): Promise<void>;
}

export function createTurnPoller(options: TurnPollerOptions): TurnPoller {
  const { api, chatId } = options;
  let known: string | undefined;
  let checking = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const schedule = () => {
    clearTimeout(timer);
    if (!options.attached()) return;
    timer = setTimeout(() => void check(), TURN_POLL_MILLISECONDS);
  };
  const check = async () => {
    if (checking || options.busy() || !options.attached()) return;
    checking = true;
    try {
      const current = await api.currentTurn(chatId);
      if (!current || options.busy()) return;
      if (current.state !== 'running' && current.id === known) return;
      const loaded = await api.getChat(chatId);
      if (options.busy() || !options.attached()) return;
      known = current.id;
      options.news(loaded, current);
    } catch {
      // The next poll tries again; a chat deleted elsewhere is left as it was shown.
    } finally {
      checking = false;
      if (!options.busy()) schedule();
    }
  };
  return {
    know: (turnId) => {
      known = turnId;
    },
    schedule,
    check,
  };
}

/**
 * The transcript a chat shows: its history, or with a running turn, what came before the turn and the
 * turn's first item (the user's message, which is not a stream event); the turn's stream replays the rest.
 */
export function transcriptAt(chat: ChatWithMessages, running: CurrentTurn | undefined): Transcript {
  const end = running ? running.messageSeqAtStart + 1 : Number.POSITIVE_INFINITY;
  const before = chat.messages.filter((message) => (message.seq ?? 0) <= end);
  const transcript = transcriptFromHistory(before, chat.turns);
  if (running) applyPendingApprovals(transcript, running.pendingApprovals ?? []);
  return transcript;
}
