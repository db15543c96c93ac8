/**
 * The `fetch` under an external server's Streamable HTTP transport, wrapped so no response body is
 * held beyond the message limit, whatever the server sends: a JSON body goes through one
 * {@link MessageCutter} (an array of messages is read as one value under the same limit), an event
 * stream through {@link cutEventStream} (each event bounded), and any other body — the SDK reads those
 * only to quote them in an error — is cut at {@link OTHER_BODY_BYTES}.
 */

import { cutEventStream } from './event-stream-cutter.ts';
import type { FetchLike } from './guarded-fetch.ts';
import { MessageCutter } from './message-cutter.ts';

/** Bytes kept of a body that is neither JSON nor an event stream: enough for an error's words. */
export const OTHER_BODY_BYTES = 16 * 1024;

function mediaType(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function cutJsonBody(limitBytes: number): TransformStream<Uint8Array, Uint8Array> {
  const cutter = new MessageCutter(limitBytes);
  return new TransformStream({
    transform(chunk) {
      cutter.feed(chunk);
    },
    flush(controller) {
      controller.enqueue(cutter.finish());
    },
  });
}

function capBody(limitBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let kept = 0;
  return new TransformStream({
    transform(chunk, controller) {
      const room = limitBytes - kept;
      if (room <= 0) return;
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
      kept += part.length;
      controller.enqueue(part);
    },
  });
}

export function createBoundedFetch(fetch: FetchLike, limitBytes: number): FetchLike {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.body === null) return response;
    const type = mediaType(response);
    const cut =
      type === 'text/event-stream'
        ? cutEventStream(limitBytes)
        : type === 'application/json'
          ? cutJsonBody(limitBytes)
          : capBody(OTHER_BODY_BYTES);
    const headers = new Headers(response.headers);
    // The body's length changes with the cut.
    headers.delete('content-length');
    return new Response(response.body.pipeThrough(cut), {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}
