/**
 * The provider conformance kit: one table of contract cases, run for every adapter in
 * `CONFORMANCE_ADAPTERS` through its official SDK against the replay server. Each case is a
 * provider-neutral script (built into each wire format by `wire-formats.ts`) and the exact neutral
 * events the adapter must produce. Comparisons drop what legitimately differs between APIs — when a call
 * is announced (`tool_call_started`, checked to precede its completion), how arguments are split
 * (checked to add up to the completed arguments), provider items and provider data — and keep the rest
 * exact. A case a wire format cannot express is listed with its reason.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import type { ConversationItem } from '../../src/contracts/conversation-item.ts';
import type { ProviderEvent } from '../../src/contracts/provider-event.ts';
import { startReplayServer } from '../helpers/replay-server.ts';
import { CONFORMANCE_ADAPTERS } from './conformance/conformance-adapters.ts';
import type { Script, ScriptCall } from './conformance/wire-formats.ts';
import { collect, makeRequest } from './provider-test-support.ts';

const server = startReplayServer();
afterAll(() => server.close());

const usage = { inputTokens: 10, outputTokens: 5 };
const paris: ScriptCall = { id: 'call_a', name: 'get_weather', fragments: ['{"location":', '"Paris"}'] };
const rome: ScriptCall = { id: 'call_b', name: 'get_weather', fragments: ['{"location":"Rome"}'] };
const noArgs: ScriptCall = { id: 'call_c', name: 'list_places', fragments: [] };
const cut: ScriptCall = { id: 'call_d', name: 'get_weather', fragments: ['{"location":"Pa'] };
const completed = (call: ScriptCall, args: string): ProviderEvent => ({
  type: 'tool_call_completed',
  callId: call.id,
  name: call.name,
  arguments: args,
});
const matching = (reason: string, message: string): ProviderEvent =>
  expect.objectContaining({ type: 'finish', reason, message: expect.stringContaining(message) }) as never;

interface ContractCase {
  name: string;
  script: Script;
  expected: ProviderEvent[];
}

const CASES: ContractCase[] = [
  {
    name: 'text',
    script: { text: 'Hello.', ending: 'stop' },
    expected: [
      { type: 'text_delta', delta: 'Hello.' },
      { type: 'finish', reason: 'stop', usage },
    ],
  },
  {
    name: 'one call',
    script: { calls: [paris], ending: 'tool_calls' },
    expected: [completed(paris, '{"location":"Paris"}'), { type: 'finish', reason: 'tool_calls', usage }],
  },
  {
    name: 'parallel calls',
    script: { text: 'Checking.', calls: [paris, rome], ending: 'tool_calls' },
    expected: [
      { type: 'text_delta', delta: 'Checking.' },
      completed(paris, '{"location":"Paris"}'),
      completed(rome, '{"location":"Rome"}'),
      { type: 'finish', reason: 'tool_calls', usage },
    ],
  },
  {
    name: 'an empty-argument call',
    script: { calls: [noArgs], ending: 'tool_calls' },
    expected: [completed(noArgs, '{}'), { type: 'finish', reason: 'tool_calls', usage }],
  },
  {
    name: 'a call cut by the output limit is never completed',
    script: { text: 'Let me check.', calls: [cut], ending: 'length' },
    expected: [
      { type: 'text_delta', delta: 'Let me check.' },
      { type: 'finish', reason: 'length', usage },
    ],
  },
  {
    name: 'a refusal reaches the user as text and finishes with refusal',
    script: { refusal: "I can't help with that.", ending: 'refusal' },
    expected: [
      { type: 'text_delta', delta: "I can't help with that." },
      { type: 'finish', reason: 'refusal', message: 'The model refused the request.', usage },
    ],
  },
  {
    name: 'the content filter finishes with content_filter and says so',
    script: { text: 'Partial', ending: 'content_filter' },
    expected: [
      { type: 'text_delta', delta: 'Partial' },
      matching('content_filter', "The provider's content filter stopped the answer"),
    ],
  },
  {
    name: 'an error event ends the stream with its message',
    script: { text: 'Hi', ending: 'error', errorMessage: 'Overloaded right now' },
    expected: [{ type: 'text_delta', delta: 'Hi' }, matching('error', 'Overloaded right now')],
  },
  {
    name: 'events without content (usage-only chunks, pings, status updates) are skipped',
    script: { text: 'Fine.', ending: 'stop', contentFreeEvents: true },
    expected: [
      { type: 'text_delta', delta: 'Fine.' },
      { type: 'finish', reason: 'stop', usage },
    ],
  },
  {
    name: 'no finish reason: a protocol-complete body after an answer is a normal stop',
    script: { text: 'Answer.', ending: 'no_finish_reason' },
    expected: [
      { type: 'text_delta', delta: 'Answer.' },
      { type: 'finish', reason: 'stop', usage },
    ],
  },
  {
    name: 'a body cut before its terminal event is an error, its open call never completed',
    script: { text: 'Answer.', calls: [paris], ending: 'cut' },
    expected: [
      { type: 'text_delta', delta: 'Answer.' },
      matching('error', 'ended before the response was complete'),
    ],
  },
  {
    name: 'reasoning before a call',
    script: { reasoning: 'think-marker', calls: [paris], ending: 'tool_calls' },
    expected: [completed(paris, '{"location":"Paris"}'), { type: 'finish', reason: 'tool_calls', usage }],
  },
];

/** The comparable part of a stream; the dropped parts are checked by `checkCallShape`. */
function neutral(events: readonly ProviderEvent[]): ProviderEvent[] {
  const kept: ProviderEvent[] = [];
  for (const event of events) {
    if (
      event.type === 'tool_call_started' ||
      event.type === 'tool_call_arguments_delta' ||
      event.type === 'provider_item'
    )
      continue;
    if (event.type === 'tool_call_completed') {
      const { providerData: _providerData, ...call } = event;
      kept.push(call);
    } else if (event.type === 'text_delta' && kept.at(-1)?.type === 'text_delta') {
      const last = kept.pop() as Extract<ProviderEvent, { type: 'text_delta' }>;
      kept.push({ type: 'text_delta', delta: last.delta + event.delta });
    } else kept.push(event);
  }
  return kept;
}

/** Every completed call was started first, and its deltas add up to its arguments (or none for `{}`). */
function checkCallShape(events: readonly ProviderEvent[]): void {
  const started = new Set<string>();
  const deltas = new Map<string, string>();
  for (const event of events) {
    if (event.type === 'tool_call_started') started.add(event.callId);
    if (event.type === 'tool_call_arguments_delta')
      deltas.set(event.callId, (deltas.get(event.callId) ?? '') + event.delta);
    if (event.type === 'tool_call_completed') {
      expect(started.has(event.callId)).toBe(true);
      const streamed = deltas.get(event.callId) ?? '';
      expect(streamed === event.arguments || (streamed === '' && event.arguments === '{}')).toBe(true);
    }
    if (event.type === 'text_delta') expect(event.delta).not.toBe('');
  }
  expect(events.filter((event) => event.type === 'finish')).toHaveLength(1);
  expect(events.at(-1)?.type).toBe('finish');
}

/** The history items a turn keeps from a stream: text runs, calls and provider items in order. */
function itemsOf(events: readonly ProviderEvent[]): ConversationItem[] {
  const items: ConversationItem[] = [];
  let text = '';
  const flush = () => {
    if (text) items.push({ type: 'assistant_text', text });
    text = '';
  };
  for (const event of events) {
    if (event.type === 'text_delta') text += event.delta;
    if (event.type === 'provider_item') {
      flush();
      items.push({ type: 'provider_item', provider: event.provider, data: event.data });
    }
    if (event.type === 'tool_call_completed') {
      flush();
      items.push({
        type: 'tool_call',
        callId: event.callId,
        name: event.name,
        arguments: event.arguments,
        ...(event.providerData !== undefined ? { providerData: event.providerData } : {}),
      });
    }
  }
  flush();
  return items;
}

for (const adapter of CONFORMANCE_ADAPTERS) {
  describe(`${adapter.id} (${adapter.api})`, () => {
    for (const contract of CASES) {
      const body = adapter.wire(contract.script);
      if (typeof body !== 'string') {
        test(`${contract.name}: not expressible — ${body.unsupported}`, () => {
          expect(body.unsupported.length).toBeGreaterThan(0);
        });
        continue;
      }
      test(contract.name, async () => {
        server.enqueue({ body });
        const events = await collect(adapter.create(server.baseUrl).stream(makeRequest()));
        expect(server.failures).toEqual([]);
        checkCallShape(events);
        expect(neutral(events)).toEqual(contract.expected);
        if (contract.script.reasoning) {
          const firstCall = events.findIndex((event) => event.type === 'tool_call_completed');
          const item = events.findIndex((event) => event.type === 'provider_item');
          expect(item).toBeGreaterThan(-1);
          expect(item).toBeLessThan(firstCall);
        }
      });
    }

    test('history replay: the next iteration carries the reasoning, the call and its result', async () => {
      const first = adapter.wire({
        reasoning: 'think-marker',
        text: 'Checking.',
        calls: [paris],
        ending: 'tool_calls',
      });
      const second = adapter.wire({ text: 'Sunny.', ending: 'stop' });
      if (typeof first !== 'string' || typeof second !== 'string')
        throw new Error('both scripts are expressible');
      const provider = adapter.create(server.baseUrl);
      server.enqueue({ body: first });
      const events = await collect(provider.stream(makeRequest()));
      const call = events.find((event) => event.type === 'tool_call_completed');
      expect(call).toMatchObject({ name: 'get_weather', arguments: '{"location":"Paris"}' });
      if (call?.type !== 'tool_call_completed') return;
      const history: ConversationItem[] = [
        ...makeRequest().history,
        ...itemsOf(events),
        { type: 'tool_result', callId: call.callId, name: call.name, ok: true, output: 'sunny-result-42' },
      ];
      let sent = '';
      server.enqueue({
        body: second,
        expectRequest: (request) => {
          sent = JSON.stringify(request.body);
        },
      });
      expect(neutral(await collect(provider.stream(makeRequest({ history }))))).toEqual([
        { type: 'text_delta', delta: 'Sunny.' },
        { type: 'finish', reason: 'stop', usage },
      ]);
      expect(server.failures).toEqual([]);
      for (const fragment of ['think-marker', 'Checking.', 'get_weather', 'Paris', 'sunny-result-42'])
        expect(sent).toContain(fragment);
    });
  });
}
