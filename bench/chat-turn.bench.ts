/**
 * Chat turns through the real HTTP route, as `npm run bench` runs them: a Mango API on 127.0.0.1 over a
 * SQLite database, `POST /api/chats/:id/turns` read as SSE by a `fetch` client.
 *
 * 1. Loop overhead per iteration: turns of 1 and of 1 + R model calls (R rounds of one no-op tool call),
 *    each in a fresh chat; overhead = (T(1+R) − T(1)) / R. Everything of an iteration is in it: the
 *    provider request, event streaming, `executeTool`, result serialization, three database writes
 *    (tool call, tool result, and the history read at the start), SSE encoding. Two providers:
 *    the real `openai-compatible` adapter against a zero-delay replay server on 127.0.0.1, and an
 *    in-process scripted provider (no provider HTTP), which isolates the loop and the database.
 * 2. Time from the provider's first byte to the client's first SSE event (median and p99): the replay
 *    server stamps the moment it hands its first chunk to the socket; the client stamps the moment the
 *    first `data:` line arrives. Baseline: the same client reading the replay server directly (the
 *    network and parsing floor), and the ratio.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_REQUEST_BODY_BYTES } from '../src/config.ts';
import type { ConversationItem } from '../src/contracts/conversation-item.ts';
import type { ProviderEvent } from '../src/contracts/provider-event.ts';
import { PROVIDER_IDS } from '../src/contracts/provider-id.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate } from '../src/db/migrate.ts';
import { createApp } from '../src/http/app.ts';
import { createAppDependencies } from '../src/http/app-dependencies.ts';
import type { ModelProvider } from '../src/providers/model-provider.ts';
import { createProviderRegistry, type ProviderRegistry } from '../src/providers/provider-registry.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import { chatBody } from '../tests/helpers/scripted-provider-streams.ts';
import { noopTool } from './support/noop-tool.ts';

const ROUNDS = 20;
const OVERHEAD_TURNS = 15;
const LATENCY_SAMPLES = 200;

/** Tool rounds the current turn asks for; the model answers once it has seen this many results. */
let roundsPerTurn = 0;
/** When the replay server handed the first chunk of its latest response to the socket. */
let firstByteAt = 0;

function toolResultsSinceLastUser(roles: readonly string[], toolRole: string, userRole: string): number {
  let count = 0;
  for (let index = roles.length - 1; index >= 0 && roles[index] !== userRole; index--) {
    if (roles[index] === toolRole) count += 1;
  }
  return count;
}

const callBody = (id: string) => chatBody({ calls: [{ id, name: 'noop', fragments: ['{"value":"x"}'] }] });
const answerBody = chatBody({ text: 'Done.' });

/** A zero-delay Chat Completions server: a tool call per round, then the answer. */
const replay = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  async fetch(request) {
    const body = (await request.json().catch(() => ({}))) as { messages?: { role: string }[] };
    const roles = (body.messages ?? []).map((message) => message.role);
    const seen = toolResultsSinceLastUser(roles, 'tool', 'user');
    const text = seen < roundsPerTurn ? callBody(`c${seen}`) : answerBody;
    const bytes = new TextEncoder().encode(text);
    return new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          firstByteAt = performance.now();
          controller.enqueue(bytes);
          controller.close();
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    );
  },
});

/** The same model in process: no provider HTTP at all. */
const scriptedProvider: ModelProvider = {
  id: 'openai',
  async *stream(request): AsyncGenerator<ProviderEvent> {
    const roles = request.history.map((item: ConversationItem) => item.type);
    const seen = toolResultsSinceLastUser(roles, 'tool_result', 'user_text');
    if (seen < roundsPerTurn) {
      const callId = `c${seen}`;
      yield { type: 'tool_call_started', callId, name: 'noop' };
      yield { type: 'tool_call_completed', callId, name: 'noop', arguments: '{"value":"x"}' };
      yield { type: 'finish', reason: 'tool_calls' };
    } else {
      yield { type: 'text_delta', delta: 'Done.' };
      yield { type: 'finish', reason: 'stop' };
    }
  },
};

const replayProviders = createProviderRegistry({
  OPENAI_COMPATIBLE_BASE_URL: `http://127.0.0.1:${replay.port}/v1`,
});
const scriptedProviders: ProviderRegistry = {
  list: () => PROVIDER_IDS.map((id) => ({ id, available: id === 'openai' })),
  status: (id) => ({ id, available: id === 'openai' }),
  get: (id) =>
    id === 'openai' ? scriptedProvider : id === 'openai-compatible' ? replayProviders.get(id) : undefined,
  listModels: async () => ['scripted'],
};

const directory = await mkdtemp(join(tmpdir(), 'mango-chat-bench-'));
const workspacesDirectory = await mkdtemp(join(tmpdir(), 'mango-chat-bench-workspaces-'));
const config = {
  workspacesDirectory,
  host: '127.0.0.1',
  port: 0,
  dataDirectory: directory,
  databaseUrl: undefined,
  shutdownTimeoutMs: 1_000,
  maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
};
const database = await openDatabase(config);
await migrate(database);
const registry = new ToolRegistry();
registry.register(noopTool);
const deps = createAppDependencies({
  config,
  database,
  registry,
  environment: { MANGO_MAX_TOOL_ITERATIONS: '1000' },
  providers: scriptedProviders,
  log: (message) => console.error(message),
});
const app = createApp(deps);
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => app.handle(request) });
const base = `http://127.0.0.1:${server.port}`;
const { token } = await deps.users.create('bench');
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

async function createChat(provider: string): Promise<string> {
  const response = await fetch(`${base}/api/chats`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ provider, model: 'bench' }),
  });
  return ((await response.json()) as { id: string }).id;
}

/** Reads a response until its first `data:` line (returning the time) and then to its end. */
async function readTurn(response: Response): Promise<{ firstEventAt: number; text: string }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let firstEventAt = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (firstEventAt === 0 && text.includes('data: ')) firstEventAt = performance.now();
  }
  return { firstEventAt, text };
}

async function runChatTurn(chatId: string): Promise<{ elapsed: number; firstEventAt: number }> {
  const started = performance.now();
  const response = await fetch(`${base}/api/chats/${chatId}/turns`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ message: 'go' }),
  });
  const { firstEventAt, text } = await readTurn(response);
  if (!text.includes('"reason":"completed"')) throw new Error(`Turn did not complete:\n${text.slice(-500)}`);
  return { elapsed: performance.now() - started, firstEventAt };
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)]!;
}

async function turnTimes(provider: string, rounds: number, turns: number): Promise<number[]> {
  roundsPerTurn = rounds;
  const times: number[] = [];
  for (let index = 0; index < turns; index++) {
    const chatId = await createChat(provider);
    times.push((await runChatTurn(chatId)).elapsed);
  }
  return times;
}

async function loopOverhead(provider: string, label: string): Promise<void> {
  await turnTimes(provider, ROUNDS, 3); // warm-up
  const single = median(await turnTimes(provider, 0, OVERHEAD_TURNS));
  const many = median(await turnTimes(provider, ROUNDS, OVERHEAD_TURNS));
  const perIteration = (many - single) / ROUNDS;
  console.log(
    `${label}: turn of 1 model call ${single.toFixed(2)} ms, of ${ROUNDS + 1} calls ${many.toFixed(2)} ms ` +
      `→ ${perIteration.toFixed(3)} ms per tool iteration (median of ${OVERHEAD_TURNS} turns each)`,
  );
}

console.log('Loop overhead per iteration through POST /api/chats/:id/turns (SQLite, no-op tool):');
await loopOverhead('openai-compatible', '  real adapter + replay server');
await loopOverhead('openai', '  in-process scripted provider ');

// Provider first byte → client's first SSE event.
roundsPerTurn = 0;
const throughMango: number[] = [];
for (let index = 0; index < LATENCY_SAMPLES + 10; index++) {
  const chatId = await createChat('openai-compatible');
  const { firstEventAt } = await runChatTurn(chatId);
  if (index >= 10) throughMango.push(firstEventAt - firstByteAt);
}
const direct: number[] = [];
for (let index = 0; index < LATENCY_SAMPLES + 10; index++) {
  const response = await fetch(`http://127.0.0.1:${replay.port}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'go' }] }),
  });
  const { firstEventAt } = await readTurn(response);
  if (index >= 10) direct.push(firstEventAt - firstByteAt);
}
const mangoMedian = median(throughMango);
const directMedian = median(direct);
console.log(`\nProvider first byte → client's first SSE event (${LATENCY_SAMPLES} turns):`);
console.log(
  `  through Mango (adapter, loop, SSE route): median ${mangoMedian.toFixed(3)} ms, p99 ${percentile(throughMango, 0.99).toFixed(3)} ms`,
);
console.log(
  `  client reading the provider directly:     median ${directMedian.toFixed(3)} ms, p99 ${percentile(direct, 0.99).toFixed(3)} ms`,
);
console.log(`  ratio (median): ${(mangoMedian / directMedian).toFixed(2)}× the direct read`);

server.stop(true);
replay.stop(true);
await database.close();
await rm(directory, { recursive: true, force: true });
await rm(workspacesDirectory, { recursive: true, force: true });
