/**
 * Server-Sent Events encoding of a turn: `POST /api/chats/:id/turns` answers with `text/event-stream`,
 * one `data:` line per `TurnEvent` holding a JSON object with a `type` field. Pure encoding plus a
 * `ReadableStream` adapter, so the route only returns
 * `new Response(createTurnEventStream(events), {headers: SSE_HEADERS})`. It lives with the HTTP routes
 * because the chat layer yields events and knows nothing of the wire they travel on.
 *
 * JSON text never contains a raw CR or LF (they are escaped inside strings), so one event is always
 * exactly one `data:` line, which is what the SSE grammar (WHATWG HTML, "Server-sent events")
 * requires for a single-line payload.
 */
import type { TurnEvent } from '../../chat/turn-events.ts';

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

function fallbackEvent(event: TurnEvent, error: unknown): Record<string, unknown> {
  const message = `This event could not be serialized to JSON: ${error instanceof Error ? error.message : String(error)}`;
  if (event.type === 'tool_result') {
    const { callId, name, durationMs } = event;
    return {
      type: 'tool_result',
      callId,
      name,
      durationMs,
      ok: false,
      error: { classification: 'execution_error', message },
    };
  }
  return { type: event.type, error: message };
}

/** `data: {json}\n\n` for one event. Never throws: an unserializable payload is replaced by an error. */
export function encodeTurnEventAsSse(event: TurnEvent): string {
  let json: string;
  try {
    json = JSON.stringify(event);
  } catch (error) {
    json = JSON.stringify(fallbackEvent(event, error));
  }
  return `data: ${json}\n\n`;
}

export const SSE_HEARTBEAT = ': keep-alive\n\n';

/** Sent first when `openingComment` is set. */
export const SSE_OPENING_COMMENT = ': turn started\n\n';

export interface TurnEventStreamOptions {
  /** Milliseconds between heartbeat comments; 0 disables them. */
  heartbeatMilliseconds?: number;
  /**
   * Send `SSE_OPENING_COMMENT` at once. Bun sends a streamed response's status and headers only with
   * its first body chunk, so without it a client learns that the turn started (200, not 409) only when
   * the model's first event arrives.
   */
  openingComment?: boolean;
}

/**
 * Streams `events` as SSE bytes. When the client goes away the stream is cancelled, which returns
 * the event iterator — for a `ChatService` turn, that aborts the turn and stops its tools. (A bare
 * `runTurn` generator should be cancelled through its signal: its `return()` waits for a pending step.)
 */
export function createTurnEventStream(
  events: AsyncIterator<TurnEvent>,
  options: TurnEventStreamOptions = {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const heartbeatMilliseconds = options.heartbeatMilliseconds ?? SSE_HEARTBEAT_MILLISECONDS;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  const stopHeartbeat = () => {
    if (heartbeat !== undefined) clearInterval(heartbeat);
    heartbeat = undefined;
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (options.openingComment) controller.enqueue(encoder.encode(SSE_OPENING_COMMENT));
      if (heartbeatMilliseconds > 0) {
        heartbeat = setInterval(() => {
          try {
            controller.enqueue(encoder.encode(SSE_HEARTBEAT));
          } catch {
            stopHeartbeat();
          }
        }, heartbeatMilliseconds);
      }
    },
    async pull(controller) {
      try {
        const step = await events.next();
        if (step.done) {
          stopHeartbeat();
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(encodeTurnEventAsSse(step.value)));
      } catch (error) {
        stopHeartbeat();
        controller.error(error);
      }
    },
    cancel() {
      stopHeartbeat();
      // Not awaited: a turn's return() settles only after its pending step does.
      Promise.resolve(events.return?.()).catch(() => {});
    },
  });
}
