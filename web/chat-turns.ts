/**
 * The turns of an open chat as the page drives them: sending a message starts a turn, opening a chat
 * whose turn runs re-attaches to it, and Cancel asks the server to stop it (closing the stream would
 * not). While a turn runs Send is disabled and the status line says what happens; a cancel that fails
 * says so and can be tried again.
 */

import type { ChatComposer } from './chat-composer.ts';
import type { ChatPageOptions } from './chat-page-options.ts';
import { followTurnStream } from './follow-turn-stream.ts';
import type { Transcript } from './transcript.ts';

const WORKING_TEXT = 'The model is working…';

export interface ChatTurnsOptions {
  api: ChatPageOptions['api'];
  chatId: string;
  transcript: Transcript;
  composer: ChatComposer;
  render: () => void;
  scheduleRender: () => void;
  /** Runs after each turn has ended and been rendered. */
  turnEnded: () => Promise<void>;
}

export interface ChatTurns {
  /** What the status line says while the turn runs and no call waits. */
  runningStatus(): string;
  /** Starts a turn with the user's message and shows it until it ends. */
  send(message: string): Promise<void>;
  /** Re-attaches to the turn running now and shows it until it ends. */
  follow(): Promise<void>;
  /** Asks the server to stop the running turn. */
  cancel(): Promise<void>;
}

export function createChatTurns(options: ChatTurnsOptions): ChatTurns {
  const { api, chatId, transcript, composer } = options;
  let runningStatus = WORKING_TEXT;

  const setRunning = (running: boolean) => {
    transcript.running = running;
    composer.setRunning(running);
    runningStatus = WORKING_TEXT;
    composer.showStatus(running ? WORKING_TEXT : '');
  };

  /** Shows a turn's stream (a new one, or one re-attached to) until its `done`. */
  const streamTurn = async (open: (signal: AbortSignal) => Promise<Response>) => {
    setRunning(true);
    transcript.doneReason = undefined;
    options.render();
    try {
      await followTurnStream(transcript, open, options.scheduleRender);
    } finally {
      setRunning(false);
      options.render();
      composer.textarea.focus();
    }
    await options.turnEnded();
  };

  return {
    runningStatus: () => runningStatus,
    send(message) {
      transcript.entries.push({ kind: 'user', text: message });
      return streamTurn((signal) => api.startTurn(chatId, message, signal));
    },
    follow: () => streamTurn((signal) => api.followTurn(chatId, 0, signal)),
    async cancel() {
      runningStatus = 'Cancelling…';
      composer.showStatus(runningStatus);
      try {
        await api.cancelTurn(chatId);
      } catch (error) {
        // Closing the stream would not stop the turn: say so and let the user try again.
        composer.enableCancel();
        runningStatus = `Could not cancel: ${(error as Error).message}`;
        composer.showStatus(runningStatus);
      }
    },
  };
}
