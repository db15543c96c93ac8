/**
 * A turn's event stream read into the transcript, a new turn's or one re-attached to: every event is
 * applied as it arrives, and a stream that ends, is aborted or fails without a `done` still ends the
 * turn in the transcript, with the reason (a failure also as a notice), so no call is left running.
 */
import { finishTurn } from './finish-turn.ts';
import { readTurnStream } from './sse-parser.ts';
import { applyTurnEvent, type Transcript } from './transcript.ts';

/** Reads the stream `open` returns until it ends; `changed` runs after each applied event. */
export async function followTurnStream(
  transcript: Transcript,
  open: (signal: AbortSignal) => Promise<Response>,
  changed: () => void,
): Promise<void> {
  const controller = new AbortController();
  try {
    const response = await open(controller.signal);
    await readTurnStream(response, (event) => {
      applyTurnEvent(transcript, event);
      changed();
    });
    if (transcript.doneReason === undefined)
      finishTurn(transcript, controller.signal.aborted ? 'cancelled' : 'error');
  } catch (error) {
    if (controller.signal.aborted) {
      // A `done` that arrived before the abort already said how the turn ended.
      if (transcript.doneReason === undefined) finishTurn(transcript, 'cancelled');
    } else {
      transcript.entries.push({
        kind: 'notice',
        tone: 'error',
        text: `The turn failed: ${(error as Error).message}`,
      });
      finishTurn(transcript, 'failed');
    }
  }
}
