/**
 * The end of a turn in the transcript (the `done` event, or the stream closing without one): calls
 * still open — receiving arguments, running, waiting for approval or queued behind a call that waits —
 * are marked cancelled, and a notice explains a non-normal end (with the server's `message` when it
 * sent one), said once even when the error was already shown.
 */
import type { Transcript } from './transcript-entries.ts';

/** How a completed turn's `finishReason` is shown (the model's own reason for ending its answer). */
const FINISH_NOTICES: Record<string, { text: string; tone: 'info' | 'error' }> = {
  length: { text: 'The answer was cut at the output limit.', tone: 'info' },
  refusal: { text: 'The model refused.', tone: 'info' },
  content_filter: { text: "Stopped by the provider's content filter.", tone: 'error' },
};

/** Ends a turn (mutates and returns the transcript). */
export function finishTurn(
  transcript: Transcript,
  reason: string,
  message?: string,
  finishReason?: string,
): Transcript {
  transcript.running = false;
  transcript.doneReason = reason;
  for (const entry of transcript.entries) {
    if (
      entry.kind === 'tool' &&
      (entry.status === 'streaming' ||
        entry.status === 'running' ||
        entry.status === 'waiting' ||
        entry.status === 'queued')
    ) {
      entry.status = 'failed';
      entry.error = { classification: 'cancelled', message: 'The turn ended before this call finished.' };
    }
  }
  const notices: Record<string, string> = {
    cancelled: 'Turn cancelled.',
    max_iterations: 'Stopped: the turn reached its tool-call iteration limit.',
    error: 'The turn ended with an error.',
  };
  const finish = reason === 'completed' && finishReason ? FINISH_NOTICES[finishReason] : undefined;
  if (finish) {
    transcript.entries.push({
      kind: 'notice',
      tone: finish.tone,
      text: message ? `${finish.text} ${message}` : finish.text,
    });
    return transcript;
  }
  // The error was already shown when it happened (the provider's `finish`, or the `error` event):
  // `done` repeats it, and showing it again would say it twice.
  if (reason === 'error' && turnHasErrorNotice(transcript)) return transcript;
  // The server's cancel message is a full sentence of its own ("The turn was cancelled.").
  const notice =
    reason === 'cancelled'
      ? (message ?? notices.cancelled)
      : notices[reason] !== undefined && message
        ? `${notices[reason]} ${message}`
        : notices[reason];
  if (notice)
    transcript.entries.push({
      kind: 'notice',
      tone: reason === 'cancelled' ? 'info' : 'error',
      text: notice,
    });
  return transcript;
}

/** Whether an error notice was added since the turn's user message. */
function turnHasErrorNotice(transcript: Transcript): boolean {
  for (let index = transcript.entries.length - 1; index >= 0; index -= 1) {
    const entry = transcript.entries[index]!;
    if (entry.kind === 'user') return false;
    if (entry.kind === 'notice' && entry.tone === 'error') return true;
  }
  return false;
}
