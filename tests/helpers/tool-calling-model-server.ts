/**
 * A Chat Completions model on 127.0.0.1 that calls tools, answering each request from its own messages
 * (the replay server answers in arrival order, which concurrent chats would interleave):
 * - last message from the user: one call, its id derived from the user's text: `callFor(text)`, by
 *   default `get_current_datetime` (the load tests');
 * - last message a tool result: the answer `Answer: <the user's text>`, streamed in a few chunks.
 * With `latencyMs`, each response waits a seeded random latency first, so many turns are in flight at
 * any moment. `baseUrl` (append `/v1`), `requests` (how many were answered), `close()`.
 */
import { chatBody } from './scripted-provider-streams.ts';
import { createRandom } from './seeded-random.ts';

export interface ToolCallingModelServer {
  readonly baseUrl: string;
  readonly requests: number;
  close(): Promise<void>;
}

interface ChatRequestMessage {
  role: string;
  content?: unknown;
}

/** The answer the model gives to `userText` once it has the tool's result. */
export function answerFor(userText: string): string {
  return `Answer: ${userText}`;
}

/** The id of the call the model makes for `userText`. */
export function callIdFor(userText: string): string {
  return `call_${new Bun.CryptoHasher('sha256').update(userText).digest('hex').slice(0, 16)}`;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => (part as { text?: string }).text ?? '').join('');
  }
  return '';
}

/** A call the model makes: the tool's name and its arguments. */
export interface ModelToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** The model of `startToolCallingModelServer` whose call is the user's text itself, as JSON. */
export function callSpelledOut(userText: string): ModelToolCall {
  return JSON.parse(userText) as ModelToolCall;
}

export function startToolCallingModelServer(options: {
  /** A latency per response, drawn from `seed`; none when absent. */
  latency?: { seed: number; ms: [number, number] };
  callFor?: (userText: string) => ModelToolCall;
}): ToolCallingModelServer {
  const { latency, callFor } = options;
  const random = createRandom(latency?.seed ?? 0);
  let requests = 0;
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    idleTimeout: 30,
    async fetch(request) {
      const body = (await request.json()) as { messages: ChatRequestMessage[] };
      requests += 1;
      const last = body.messages.at(-1);
      const userText = textOf(body.messages.findLast((message) => message.role === 'user')?.content);
      const call = callFor?.(userText);
      const id = callIdFor(userText);
      const sse =
        last?.role === 'tool'
          ? chatBody({ text: answerFor(userText) })
          : chatBody({
              calls: [
                call === undefined
                  ? { id, name: 'get_current_datetime', fragments: ['{"timezone":', '"UTC"}'] }
                  : { id, name: call.name, fragments: [JSON.stringify(call.arguments)] },
              ],
            });
      // Simulated model latency: the load test needs turns in flight when it kills an instance.
      if (latency !== undefined) {
        await Bun.sleep(random.integer(latency.ms[0], latency.ms[1])); // fixture: a model's time to answer
      }
      return new Response(sse, { headers: { 'content-type': 'text/event-stream' } });
    },
  });
  return {
    baseUrl: `http://127.0.0.1:${server.port}`,
    get requests() {
      return requests;
    },
    close: () => server.stop(true),
  };
}
