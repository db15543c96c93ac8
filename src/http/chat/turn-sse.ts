/**
 * Server-Sent Events encoding of a turn (`POST /api/chats/:id/turns` and the re-attach route answer with
 * `text/event-stream`, one `data:` line per `TurnEvent` holding a JSON object with a `type` field).
 * Pure encoding plus a `ReadableStream` adapter, so the route only returns
 * `new Response(createTurnEventStream(events), {headers: SSE_HEADERS})`. Each persisted event carries
 * its sequence number as the SSE `id`, so a client resumes with `…/turns/current/events?after=ID`. It
 * lives with the HTTP routes because the chat layer yields events and knows nothing of their wire.
 *
 * JSON text never contains a raw CR or LF (they are escaped inside strings), so one event is always
 * exactly one `data:` line, which is what the SSE grammar (WHATWG HTML, "Server-sent events")
 * requires for a single-line payload.
 */

import type { TurnEvent } from '../../contracts/turn-event.ts';
import { serializeTurnEvent } from '../../turns/turn-event-json.ts';
import type { TurnFollower } from '../../turns/turn-follower.ts';

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // Asks reverse proxies (nginx) not to buffer the stream.
  'x-accel-buffering': 'no',
};

/**
 * Default interval of `: keep-alive` comments while the model or a long tool is silent, so neither
 * `Bun.serve` (idle timeout 10 s by default) nor an idle proxy closes the connection. The server passes
 * half its configured idle timeout.
 */
export const SSE_HEARTBEAT_MILLISECONDS = 5_000;

/**
 * `id: SEQ\ndata: {json}\n\n` for one event (`id:` only for a persisted event, so a client can resume
 * after it). Never throws: an unserializable payload is replaced by an error.
 */
export function encodeTurnEventAsSse(event: TurnEvent, seq?: number): string {
  const id = seq === undefined ? '' : `id: ${seq}\n`;
  return `${id}data: ${serializeTurnEvent(event)}\n\n`;
}

export const SSE_HEARTBEAT = ': keep-alive\n\n';

/** Sent first when `openingComment` is set. */
export const SSE_OPENING_COMMENT = ': turn started\n\n';

/**
 * A client this far behind the turn (bytes of events not yet taken) that is not catching up is
 * dropped.
 */
export const MAX_CLIENT_LAG_BYTES = 1024 * 1024;
/** How often the lag of a client is measured. */
const LAG_CHECK_MILLISECONDS = 250;

export interface TurnEventStreamOptions {
  /** Milliseconds between heartbeat comments; 0 disables them. */
  heartbeatMilliseconds?: number;
  /**
   * Send `SSE_OPENING_COMMENT` at once. Bun sends a streamed response's status and headers only with
   * its first body chunk, so without it a client learns that the turn started (200, not 409) only when
   * the model's first event arrives.
   */
  openingComment?: boolean;
  /** Default `MAX_CLIENT_LAG_BYTES`. */
  maxLagBytes?: number;
}

type EventSource = AsyncIterator<TurnEvent> & Partial<Pick<TurnFollower, 'lastSeq' | 'lagBytes'>>;

/**
 * Streams `events` as SSE bytes, pulling the next event only when the client took the previous one.
 * When the client goes away, or is more than `maxLagBytes` behind a follower (`lagBytes`) without
 * catching up between two measures, the stream ends and the iterator is returned: for a
 * `TurnFollower` that stops following, never the turn.
 */
export function createTurnEventStream(
  events: EventSource,
  options: TurnEventStreamOptions = {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const heartbeatMilliseconds = options.heartbeatMilliseconds ?? SSE_HEARTBEAT_MILLISECONDS;
  const maxLagBytes = options.maxLagBytes ?? MAX_CLIENT_LAG_BYTES;
  const timers: ReturnType<typeof setInterval>[] = [];
  let finished = false;
  const stop = () => {
    finished = true;
    for (const timer of timers) clearInterval(timer);
    timers.length = 0;
    // Not awaited: a generator's return() settles only after its pending step does.
    Promise.resolve(events.return?.()).catch(() => {});
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (options.openingComment) controller.enqueue(encoder.encode(SSE_OPENING_COMMENT));
        if (heartbeatMilliseconds > 0) {
          const heartbeat = setInterval(() => {
            try {
              controller.enqueue(encoder.encode(SSE_HEARTBEAT));
            } catch {
              stop();
            }
          }, heartbeatMilliseconds);
          timers.push(heartbeat);
        }
        const lagBytes = events.lagBytes?.bind(events);
        if (lagBytes) {
          let measuring = false;
          // Behind by more than the limit and not catching up since the last measure: a client
          // replaying a long turn is far behind too, but its lag shrinks at every measure.
          let previousLag = Number.POSITIVE_INFINITY;
          const check = setInterval(() => {
            if (measuring || finished) return;
            measuring = true;
            lagBytes()
              .then((lag) => {
                const fallingBehind = lag > maxLagBytes && lag >= previousLag;
                previousLag = lag;
                if (!fallingBehind || finished) return;
                stop();
                // Without a reason: Bun then resets the connection without logging a stack trace per
                // slow client. The client sees its stream cut before `done` and may re-attach.
                controller.error();
              })
              .catch(() => {})
              .finally(() => {
                measuring = false;
              });
          }, LAG_CHECK_MILLISECONDS);
          timers.push(check);
        }
      },
      async pull(controller) {
        try {
          const step = await events.next();
          if (finished) return;
          if (step.done) {
            stop();
            controller.close();
            return;
          }
          controller.enqueue(encoder.encode(encodeTurnEventAsSse(step.value, events.lastSeq)));
        } catch (error) {
          if (finished) return;
          stop();
          controller.error(error);
        }
      },
      cancel() {
        stop();
      },
    },
    { highWaterMark: 0 },
  );
}
