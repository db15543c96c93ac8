/**
 * A Chat Completions model on 127.0.0.1 for load tests, answering each request from its own messages
 * (the replay server answers in arrival order, which concurrent chats would interleave):
 * - last message from the user: one `get_current_datetime` call, its id derived from the user's text;
 * - last message a tool result: the answer `Answer: <the user's text>`, streamed in a few chunks.
 * Each response waits a seeded random latency first, so many turns are in flight at any moment.
 * `baseUrl` (append `/v1`), `requests` (how many were answered), `close()`.
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

export function startToolCallingModelServer(options: {
  seed: number;
  latencyMs: [number, number];
}): ToolCallingModelServer {
  const random = createRandom(options.seed);
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
      const sse =
        last?.role === 'tool'
          ? chatBody({ text: answerFor(userText) })
          : chatBody({
              calls: [
                {
                  id: callIdFor(userText),
                  name: 'get_current_datetime',
                  fragments: ['{"timezone":', '"UTC"}'],
                },
              ],
            });
      // Simulated model latency: the load test needs turns in flight when it kills an instance.
      await Bun.sleep(random.integer(options.latencyMs[0], options.latencyMs[1]));
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
