/**
 * Provider adapter overhead: each recorded stream replayed from a local server (127.0.0.1) through
 * (a) the bare official SDK, iterating its events — what a caller would otherwise use — and (b) our
 * adapter on the same SDK, producing `ProviderEvent`s. Prints time per stream and the ratio b/a; also the
 * pure translation throughput (SDK events already in memory) in events per millisecond.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import type { ProviderEvent } from '../src/contracts/provider-event.ts';
import {
  createAnthropicMessagesProvider,
  translateAnthropicStream,
} from '../src/providers/anthropic-messages-provider.ts';
import {
  createGeminiInteractionsProvider,
  translateGeminiStream,
} from '../src/providers/gemini-interactions-provider.ts';
import type { ModelProvider, ModelRequest } from '../src/providers/model-provider.ts';
import { createOpenAIChatProvider, translateChatStream } from '../src/providers/openai-chat-provider.ts';
import {
  createOpenAIResponsesProvider,
  translateResponsesStream,
} from '../src/providers/openai-responses-provider.ts';
import { readProviderFixture, sseFromJsonl, startReplayServer } from '../tests/helpers/replay-server.ts';

const ITERATIONS = 60;
const server = startReplayServer();
const signal = new AbortController().signal;
const request: ModelRequest = {
  model: 'bench',
  history: [{ type: 'user_text', text: 'hi' }],
  tools: [],
  signal,
};

interface Case {
  name: string;
  body: string;
  bare: () => Promise<AsyncIterable<unknown>>;
  provider: ModelProvider;
  translate: (events: AsyncIterable<never>) => AsyncIterable<ProviderEvent>;
}

const openai = new OpenAI({ apiKey: 'k', baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
const anthropic = new Anthropic({ apiKey: 'k', baseURL: server.baseUrl, maxRetries: 0 });
const gemini = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: server.baseUrl } });

const cases: Case[] = [
  {
    name: 'responses  lmstudio reasoning+text+call',
    body: sseFromJsonl(
      readProviderFixture('lmstudio-responses.reasoning-text-then-call.no-arg-deltas.1.jsonl'),
      {
        eventName: 'type',
      },
    ),
    bare: () => openai.responses.create({ model: 'bench', input: 'hi', stream: true }),
    provider: createOpenAIResponsesProvider({ apiKey: 'k', baseURL: `${server.baseUrl}/v1`, maxRetries: 0 }),
    translate: (events) => translateResponsesStream(events, signal),
  },
  {
    name: 'chat       deepseek reasoning+call',
    body: sseFromJsonl(readProviderFixture('deepseek-chat.reasoning-then-call.deepseek-reasoner.jsonl'), {
      done: true,
    }),
    bare: () => openai.chat.completions.create({ model: 'bench', messages: [], stream: true }),
    provider: createOpenAIChatProvider({ apiKey: 'k', baseURL: `${server.baseUrl}/v1`, maxRetries: 0 }),
    translate: (events) => translateChatStream(events, signal),
  },
  {
    name: 'anthropic  max-tokens mid-call',
    body: readProviderFixture('anthropic-messages.max-tokens-mid-call.claude-3-7-sonnet.sse'),
    bare: () => anthropic.messages.create({ model: 'bench', max_tokens: 10, messages: [], stream: true }),
    provider: createAnthropicMessagesProvider({ apiKey: 'k', baseURL: server.baseUrl, maxRetries: 0 }),
    translate: (events) => translateAnthropicStream(events, signal),
  },
  {
    name: 'gemini     interactions step 1',
    body: sseFromJsonl(
      readProviderFixture('gemini-interactions.call-requires-action.step1.gemini-2.5-flash.jsonl'),
    ),
    bare: () => gemini.interactions.create({ model: 'bench', input: 'hi', stream: true }),
    provider: createGeminiInteractionsProvider({ apiKey: 'k', baseURL: server.baseUrl, maxRetries: 0 }),
    translate: (events) => translateGeminiStream(events, signal),
  },
];

async function* fromArray(items: readonly unknown[]): AsyncGenerator<never> {
  for (const item of items) yield item as never;
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function timeStreams(body: string, once: () => Promise<number>): Promise<number> {
  for (let warmup = 0; warmup < 5; warmup += 1) {
    server.enqueue({ body });
    await once();
  }
  const startedAt = performance.now();
  for (let iteration = 0; iteration < ITERATIONS; iteration += 1) {
    server.enqueue({ body });
    await once();
  }
  return (performance.now() - startedAt) / ITERATIONS;
}

console.log(
  `${ITERATIONS} streams per measurement, median of 5 alternating rounds, replay server on 127.0.0.1`,
);
console.log(
  'case                                      | bare SDK ms | adapter ms | ratio | translate events/ms',
);
for (const testCase of cases) {
  const sdkEvents: unknown[] = [];
  const bareOnce = async () => {
    let count = 0;
    sdkEvents.length = 0;
    for await (const event of await testCase.bare()) {
      sdkEvents.push(event);
      count += 1;
    }
    return count;
  };
  const adapterOnce = async () => {
    let count = 0;
    for await (const _event of testCase.provider.stream(request)) count += 1;
    return count;
  };
  // Alternate the two sides over several rounds and keep each side's median, so warm-up and machine
  // load (2 shared cores) weigh on both alike.
  const bareRounds: number[] = [];
  const adapterRounds: number[] = [];
  for (let round = 0; round < 5; round += 1) {
    bareRounds.push(await timeStreams(testCase.body, bareOnce));
    adapterRounds.push(await timeStreams(testCase.body, adapterOnce));
  }
  const bareMs = median(bareRounds);
  const adapterMs = median(adapterRounds);
  const rounds = 2000;
  const translateStart = performance.now();
  for (let round = 0; round < rounds; round += 1) {
    for await (const _event of testCase.translate(fromArray(sdkEvents))) {
      // drain
    }
  }
  const eventsPerMs = (rounds * sdkEvents.length) / (performance.now() - translateStart);
  console.log(
    `${testCase.name.padEnd(42)}| ${bareMs.toFixed(3).padStart(11)} | ${adapterMs.toFixed(3).padStart(10)} | ${(
      adapterMs / bareMs
    )
      .toFixed(2)
      .padStart(5)} | ${eventsPerMs.toFixed(0).padStart(8)} (${sdkEvents.length} SDK events per stream)`,
  );
}
if (server.failures.length > 0) {
  console.log('replay failures:', server.failures);
  process.exitCode = 1;
}
await server.close();
