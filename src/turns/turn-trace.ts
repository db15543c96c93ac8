/**
 * The turn trace: what a client showed of a turn beyond its stored messages, kept with the turn record
 * (its `progress` field) so that reopening a chat shows exactly what was seen live, once. It holds the
 * turn's events that are not already in its messages — approval questions and answers (without the
 * call's arguments), tool progress, tool durations, provider retries,
 * provider errors, model calls' usage and the final `done` — each with `at`, how many of the turn's
 * conversation items had been saved when it happened, so a client puts it back in the same place.
 *
 * Guarantees: streamed text, argument deltas, provider items and tool results' payloads are left out
 * (the messages hold them), so a trace stays small; at most `MAX_TRACE_EVENTS` events are kept (the
 * rest are counted in `dropped`), and a progress event's own fields are cut to `MAX_PROGRESS_BYTES`
 * of JSON.
 */
import type { TurnEvent } from '../contracts/turn-event.ts';

export const TURN_TRACE_VERSION = 1;
export const MAX_TRACE_EVENTS = 500;
export const MAX_PROGRESS_BYTES = 2_048;

export interface TurnTraceEntry {
  /** How many of the turn's conversation items were saved before this event. */
  at: number;
  event: Record<string, unknown> & { type: string };
}

export interface TurnTrace {
  version: typeof TURN_TRACE_VERSION;
  events: TurnTraceEntry[];
  /** Events past `MAX_TRACE_EVENTS` that were not kept. */
  dropped: number;
}

/** The part of an event the trace keeps, or undefined when its messages already hold all of it. */
function compact(event: TurnEvent): TurnTraceEntry['event'] | undefined {
  switch (event.type) {
    case 'tool_result':
      return {
        type: 'tool_result',
        callId: event.callId,
        name: event.name,
        ok: event.ok,
        durationMs: event.durationMs,
      };
    case 'tool_progress': {
      const text = JSON.stringify(event.progress);
      const progress =
        text.length <= MAX_PROGRESS_BYTES ? event.progress : { type: event.progress.type, truncated: true };
      return { type: 'tool_progress', callId: event.callId, name: event.name, progress };
    }
    case 'tool_approval_requested': {
      // The arguments are in the call's stored message already.
      const { arguments: _arguments, ...kept } = event;
      return kept;
    }
    case 'tool_approval_resolved':
    case 'finish':
    case 'provider_retry':
    case 'done':
      return { ...event };
    default:
      return undefined;
  }
}

/** Collects a turn's trace while it runs. */
export class TurnTraceRecorder {
  readonly #events: TurnTraceEntry[] = [];
  #dropped = 0;
  #saved = 0;

  /** One of the turn's conversation items was saved. */
  itemSaved(): void {
    this.#saved += 1;
  }

  record(event: TurnEvent): void {
    const kept = compact(event);
    if (kept === undefined) return;
    // The final `done` is always kept: it says how the turn ended.
    if (this.#events.length >= MAX_TRACE_EVENTS && event.type !== 'done') {
      this.#dropped += 1;
      return;
    }
    this.#events.push({ at: this.#saved, event: kept });
  }

  get trace(): TurnTrace {
    return { version: TURN_TRACE_VERSION, events: [...this.#events], dropped: this.#dropped };
  }
}
