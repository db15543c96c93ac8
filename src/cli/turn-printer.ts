/**
 * Renders a chat turn's events for a terminal (`mango chat`): the model's text as it streams, each tool
 * call with its arguments when the model finishes it, progress, each result with its duration, provider
 * retries, and why the turn ended when it did not simply complete (a refusal, the content filter and a
 * cut answer included). Pure apart from the `write` sink it is given.
 */
import type { TurnEvent, TurnFinishReason } from '../contracts/turn-event.ts';

/** Longest argument or result preview printed on one line. */
export const PREVIEW_CHARACTERS = 200;

function preview(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ');
  return oneLine.length > PREVIEW_CHARACTERS ? `${oneLine.slice(0, PREVIEW_CHARACTERS)}…` : oneLine;
}

function previewValue(value: unknown): string {
  try {
    return preview(JSON.stringify(value) ?? 'null');
  } catch {
    return preview(String(value));
  }
}

/** How a completed turn's finish reason is labelled (the model's own reason for ending its answer). */
const FINISH_LABELS: Record<TurnFinishReason, string> = {
  length: 'answer cut at the output limit',
  refusal: 'the model refused',
  content_filter: 'stopped by the content filter',
};

/** Returns a function that prints one event at a time through `write`. */
export function createTurnPrinter(write: (text: string) => void): (event: TurnEvent) => void {
  let atLineStart = true;
  const line = (text: string) => {
    write(`${atLineStart ? '' : '\n'}${text}\n`);
    atLineStart = true;
  };
  return (event) => {
    switch (event.type) {
      case 'text_delta':
        if (event.delta === '') return;
        write(event.delta);
        atLineStart = event.delta.endsWith('\n');
        return;
      case 'tool_call_completed':
        line(`▸ ${event.name} ${preview(event.arguments || '{}')}`);
        return;
      case 'tool_progress':
        line(`  … ${event.name} ${previewValue(event.progress)}`);
        return;
      case 'tool_result':
        line(
          event.ok
            ? `  ✓ ${event.name} (${event.durationMs} ms) ${previewValue(event.result)}`
            : `  ✗ ${event.name} (${event.durationMs} ms) ${event.error.classification}: ${preview(event.error.message)}`,
        );
        return;
      case 'tool_approval_resolved':
        line(
          `  ${event.decision === 'approved' ? '✓ approved' : `✗ denied (${event.by})`}${event.reason ? ` — ${preview(event.reason)}` : ''}`,
        );
        return;
      case 'provider_retry':
        line(`[provider busy: retry ${event.attempt} in ${event.waitSeconds} s]`);
        return;
      case 'done':
        if (event.reason === 'completed') {
          if (!atLineStart) write('\n');
          atLineStart = true;
          if (event.finishReason) {
            line(`[${FINISH_LABELS[event.finishReason]}${event.message ? ` — ${event.message}` : ''}]`);
          }
          return;
        }
        line(`[turn ended: ${event.reason}${event.message ? ` — ${event.message}` : ''}]`);
        return;
      default:
        return;
    }
  };
}
