/**
 * A scripted provider on 127.0.0.1: the official SDKs are pointed at it with `baseURL`, it answers each
 * request with the next scripted streaming response, and it records every request it received.
 *
 * API
 * - `startReplayServer()` → `ReplayServer` listening on 127.0.0.1, port 0 (any free port).
 *   - `baseUrl`: `http://127.0.0.1:PORT` (append `/v1` for the openai SDK).
 *   - `enqueue(...steps)`: scripted responses, answered in order whatever the request path.
 *   - `requests`: every request received (`method`, `path`, `headers`, `body` parsed as JSON when it is JSON).
 *   - `failures`: what went wrong on the server side — a step's `expectRequest` that threw, or a request
 *     with no step left. Tests assert `failures` is empty; the failing request gets HTTP 400 with the message.
 *   - `close()`: stops the server and closes open streams.
 * - `ReplayStep`: `body` (the SSE text to send, split into one write per event) or `chunks` (exact writes);
 *   `status`/`headers` (default 200, `text/event-stream`); `ending`: `'end'` (default) closes the body
 *   cleanly, `'reset'` aborts the connection after the last chunk (a cut stream), `'hang'` keeps it open
 *   until the client goes away (for cancellation tests); `pause: {afterChunks, until}` holds the body after
 *   that many writes until the promise settles (a reader acting mid-stream); `expectRequest(request)` asserts on the request
 *   (e.g. that iteration n+1 carries the tool results of iteration n) and throws to fail.
 * - Transcript builders: `sseFromJsonl(text, {eventName, done})` wraps JSONL lines as `data:` events (with
 *   `event: <obj[eventName]>` lines for SDKs that need them, and `data: [DONE]` for Chat Completions);
 *   `sseFromEvents(objects, options)` does the same for objects written in a test; `splitJsonlStreams`
 *   splits a multi-stream JSONL recording at each line whose `type` is the given one.
 * - `readProviderFixture(name)`: a recorded transcript from `tests/providers/__fixtures__/provider-streams/`.
 * - Scripted responses in each provider's format: `scripted-provider-streams.ts` beside this file.
 *
 * Example (a scripted Chat Completions model that calls a tool, then answers):
 *   const server = startReplayServer();
 *   server.enqueue({ body: chatBody({ calls: [{ id: 'c1', name: 'grep', fragments: ['{"pattern":"x"}'] }] }) },
 *     { body: chatBody({ text: 'Done.' }), expectRequest: (request) => expect(request.body).toMatchObject(…) });
 *   const provider = createOpenAIChatProvider({ apiKey: 'k', baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
 *   …run the loop…; expect(server.failures).toEqual([]); await server.close();
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RecordedRequest {
  method: string;
  path: string;
  search: string;
  headers: Record<string, string>;
  body: unknown;
}

export interface ReplayStep {
  body?: string;
  chunks?: string[];
  status?: number;
  headers?: Record<string, string>;
  ending?: 'end' | 'reset' | 'hang';
  expectRequest?: (request: RecordedRequest) => void;
  /** Holds the body after its first `afterChunks` writes until `until` settles (a stream caught mid-way). */
  pause?: { afterChunks: number; until: Promise<unknown> };
}

export interface ReplayServer {
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  readonly failures: string[];
  enqueue(...steps: ReplayStep[]): void;
  close(): Promise<void>;
}

export interface SseOptions {
  /** Field of each object whose value becomes the `event:` line (`type` for Anthropic and Responses). */
  eventName?: string;
  /** Append `data: [DONE]` (Chat Completions). */
  done?: boolean;
}

/** Wraps objects as SSE events. */
export function sseFromEvents(events: readonly unknown[], options: SseOptions = {}): string {
  let text = '';
  for (const event of events) {
    if (options.eventName !== undefined) {
      const name = (event as Record<string, unknown>)[options.eventName];
      if (typeof name === 'string') text += `event: ${name}\n`;
    }
    text += `data: ${JSON.stringify(event)}\n\n`;
  }
  if (options.done) text += 'data: [DONE]\n\n';
  return text;
}

/** Wraps each non-empty JSONL line as one SSE event, byte for byte (the line is not re-serialized). */
export function sseFromJsonl(jsonl: string, options: SseOptions = {}): string {
  let text = '';
  for (const line of jsonl.split('\n')) {
    if (line.trim() === '') continue;
    if (options.eventName !== undefined) {
      const name = (JSON.parse(line) as Record<string, unknown>)[options.eventName];
      if (typeof name === 'string') text += `event: ${name}\n`;
    }
    text += `data: ${line}\n\n`;
  }
  if (options.done) text += 'data: [DONE]\n\n';
  return text;
}

/** Splits a JSONL file holding several streams at each line whose `type` is `startType`. */
export function splitJsonlStreams(jsonl: string, startType: string): string[] {
  const parts: string[][] = [];
  for (const line of jsonl.split('\n')) {
    if (line.trim() === '') continue;
    if ((JSON.parse(line) as { type?: unknown }).type === startType || parts.length === 0) parts.push([]);
    parts[parts.length - 1]!.push(line);
  }
  return parts.map((lines) => `${lines.join('\n')}\n`);
}

const FIXTURE_DIRECTORY = join(import.meta.dir, '..', 'providers', '__fixtures__', 'provider-streams');

export function readProviderFixture(name: string): string {
  return readFileSync(join(FIXTURE_DIRECTORY, name), 'utf8');
}

function splitSseEvents(body: string): string[] {
  const pieces = body.split(/(?<=\n\n)/);
  return pieces.filter((piece) => piece.length > 0);
}

export function startReplayServer(): ReplayServer {
  const steps: ReplayStep[] = [];
  const requests: RecordedRequest[] = [];
  const failures: string[] = [];
  const openControllers = new Set<ReadableStreamDefaultController<Uint8Array>>();
  const encoder = new TextEncoder();

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 30,
    async fetch(request) {
      const url = new URL(request.url);
      const text = await request.text();
      let body: unknown = text;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      const recorded: RecordedRequest = {
        method: request.method,
        path: url.pathname,
        search: url.search,
        headers: Object.fromEntries(request.headers.entries()),
        body,
      };
      requests.push(recorded);
      const step = steps.shift();
      const fail = (message: string) => {
        failures.push(message);
        return Response.json({ error: { type: 'replay_failure', message } }, { status: 400 });
      };
      if (!step)
        return fail(`request ${requests.length} (${request.method} ${url.pathname}) has no scripted step`);
      try {
        step.expectRequest?.(recorded);
      } catch (error) {
        return fail(`request ${requests.length}: ${error instanceof Error ? error.message : String(error)}`);
      }

      const chunks = step.chunks ?? splitSseEvents(step.body ?? '');
      const ending = step.ending ?? 'end';
      let controllerRef: ReadableStreamDefaultController<Uint8Array> | undefined;
      const stream = new ReadableStream<Uint8Array>({
        async start(controller) {
          controllerRef = controller;
          openControllers.add(controller);
          if (ending === 'reset') {
            // Bun's fetch drops body bytes that share a packet with the headers when the connection is
            // then reset: lead with an SSE comment (ignored by every parser) and let it go out alone.
            controller.enqueue(encoder.encode(': replay\n\n'));
            await Bun.sleep(20); // fixture: a provider pausing between packets, as a real one on the network does
          }
          for (const [index, chunk] of chunks.entries()) {
            if (index === step.pause?.afterChunks) await step.pause.until;
            controller.enqueue(encoder.encode(chunk));
          }
          if (ending === 'end') {
            openControllers.delete(controller);
            controller.close();
          } else if (ending === 'reset') {
            // Let the chunks reach the client first, then abort the response mid-body.
            await Bun.sleep(50); // fixture: a provider whose connection drops a moment after its last chunk
            openControllers.delete(controller);
            // Erroring the body makes Bun drop the connection (an `undefined` reason keeps Bun from logging it).
            controller.error(undefined);
          } else {
            request.signal.addEventListener('abort', () => {
              openControllers.delete(controller);
              try {
                controller.close();
              } catch {
                // already closed
              }
            });
          }
        },
        cancel() {
          if (controllerRef) openControllers.delete(controllerRef);
        },
      });
      return new Response(stream, {
        status: step.status ?? 200,
        headers: { 'content-type': 'text/event-stream', ...step.headers },
      });
    },
  });

  return {
    baseUrl: `http://127.0.0.1:${server.port}`,
    requests,
    failures,
    enqueue(...newSteps) {
      steps.push(...newSteps);
    },
    async close() {
      for (const controller of openControllers) {
        try {
          controller.close();
        } catch {
          // already closed
        }
      }
      openControllers.clear();
      await server.stop(true);
    },
  };
}
