/**
 * A model answer that ends with a finish reason the user must see (cut by the output limit, a refusal,
 * the provider's content filter) completes the turn with that `finishReason` and its message on `done`;
 * the answer text is kept. `provider_retry` events reach the client as they arrive.
 */
import { describe, expect, test } from 'bun:test';
import type { ConversationItem } from '../../src/contracts/conversation-item.ts';
import type { ProviderEvent } from '../../src/contracts/provider-event.ts';
import type { TurnEvent } from '../../src/contracts/turn-event.ts';
import { runModelLoop } from '../../src/model-loop/model-loop.ts';
import { ScriptedProvider } from '../helpers/scripted-provider.ts';
import { makeReachableSet } from '../helpers/tool-context.ts';
import { createTurnTools, loadRuntime } from '../helpers/turn-tools.ts';

async function run(response: ProviderEvent[]) {
  const { registry } = createTurnTools();
  const saved: ConversationItem[] = [];
  const events: TurnEvent[] = [];
  for await (const event of runModelLoop({
    provider: new ScriptedProvider([response]),
    model: 'test-model',
    history: [],
    userText: 'hello',
    tools: await loadRuntime(registry),
    toolContext: { userId: 'u1', chatId: 'c1', reachable: makeReachableSet() },
    now: () => 1000,
    onItem: (item) => {
      saved.push(item);
    },
    executeOptions: { registry },
  }))
    events.push(event);
  return { events, saved };
}

describe('runModelLoop: finish reasons on done', () => {
  test('a refusal completes the turn with finishReason refusal; its text is the saved answer', async () => {
    const { events, saved } = await run([
      { type: 'text_delta', delta: "I can't help with that." },
      { type: 'finish', reason: 'refusal', message: 'The model refused the request.' },
    ]);
    expect(events.at(-1)).toEqual({
      type: 'done',
      reason: 'completed',
      message: 'The model refused the request.',
      finishReason: 'refusal',
    });
    expect(saved).toEqual([
      { type: 'user_text', text: 'hello' },
      { type: 'assistant_text', text: "I can't help with that." },
    ]);
  });

  test("the content filter completes the turn with finishReason content_filter and the provider's message", async () => {
    const { events } = await run([
      { type: 'text_delta', delta: 'Part' },
      {
        type: 'finish',
        reason: 'content_filter',
        message: "The provider's content filter stopped the answer (SAFETY).",
      },
    ]);
    expect(events.at(-1)).toEqual({
      type: 'done',
      reason: 'completed',
      message: "The provider's content filter stopped the answer (SAFETY).",
      finishReason: 'content_filter',
    });
  });

  test('the output limit completes the turn with finishReason length', async () => {
    const { events } = await run([
      { type: 'text_delta', delta: 'Long' },
      { type: 'finish', reason: 'length' },
    ]);
    expect(events.at(-1)).toEqual({
      type: 'done',
      reason: 'completed',
      message: "The model's answer was cut at its output token limit.",
      finishReason: 'length',
    });
  });

  test('a plain answer has no finishReason; provider_retry reaches the client in order', async () => {
    const { events } = await run([
      { type: 'provider_retry', attempt: 1, waitSeconds: 2 },
      { type: 'text_delta', delta: 'Hi' },
      { type: 'finish', reason: 'stop' },
    ]);
    expect(events).toEqual([
      { type: 'provider_retry', attempt: 1, waitSeconds: 2 },
      { type: 'text_delta', delta: 'Hi' },
      { type: 'finish', reason: 'stop' },
      { type: 'done', reason: 'completed' },
    ]);
  });
});
