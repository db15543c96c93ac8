import { describe, expect, test } from 'bun:test';
import type { ConversationItem } from '../../src/contracts/conversation-item.ts';
import type { ProviderEvent } from '../../src/contracts/provider-event.ts';
import type { TurnEvent } from '../../src/contracts/turn-event.ts';
import { type ModelLoopParameters, runModelLoop } from '../../src/model-loop/model-loop.ts';
import { buildFinalIterationNotice } from '../../src/model-loop/system-prompt.ts';
import { readOnlyLocalTraits, type ToolTraits } from '../../src/tools/tool-traits.ts';
import type { RegisteredTool } from '../../src/tools/types.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import {
  hangForever,
  hangUntilAborted,
  ScriptedProvider,
  type ScriptStep,
  textResponse,
  toolCallEvents,
  toolCallsResponse,
} from '../helpers/scripted-provider.ts';
import { makeReachableSet } from '../helpers/tool-context.ts';
import { createTurnTools, loadRuntime, yieldTurns } from '../helpers/turn-tools.ts';

async function setUp(
  steps: readonly ScriptStep[],
  overrides: Partial<ModelLoopParameters> = {},
  extraTools: readonly RegisteredTool[] = [],
) {
  const { registry, probe } = createTurnTools();
  for (const tool of extraTools) registry.register(tool);
  const provider = new ScriptedProvider(steps);
  const saved: ConversationItem[] = [];
  const parameters: ModelLoopParameters = {
    provider,
    model: 'test-model',
    systemPrompt: 'SYSTEM',
    history: [],
    userText: 'hello',
    tools: await loadRuntime(registry),
    toolContext: { userId: 'u1', reachable: makeReachableSet(), chatId: 'c1' },
    now: () => 1000,
    onItem: (item) => {
      saved.push(item);
    },
    executeOptions: { registry },
    ...overrides,
  };
  return { provider, probe, saved, parameters };
}

async function collect(events: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const all: TurnEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const last = (events: TurnEvent[]) => events[events.length - 1];
const toolResults = (events: TurnEvent[]) => events.filter((event) => event.type === 'tool_result');

describe('runModelLoop: iterations and history', () => {
  test('runs tools across iterations and feeds each iteration the results of the previous one', async () => {
    const { provider, saved, parameters } = await setUp([
      toolCallsResponse([{ id: 'a', name: 'write_note', arguments: { value: '1' } }], 'Let me write. '),
      toolCallsResponse([{ id: 'b', name: 'read_file', arguments: { value: '2' } }]),
      textResponse('All done.'),
    ]);
    const events = await collect(runModelLoop(parameters));

    expect(events.map((event) => event.type)).toEqual([
      'text_delta',
      ...toolCallEvents({ id: 'a', name: 'write_note' }).map((event) => event.type),
      'finish',
      'tool_result',
      ...toolCallEvents({ id: 'b', name: 'read_file' }).map((event) => event.type),
      'finish',
      'tool_result',
      'text_delta',
      'text_delta',
      'finish',
      'done',
    ]);
    expect(last(events)).toEqual({ type: 'done', reason: 'completed' });
    expect(toolResults(events)).toEqual([
      {
        type: 'tool_result',
        callId: 'a',
        name: 'write_note',
        durationMs: 0,
        ok: true,
        result: { tool: 'write_note', value: '1' },
      },
      {
        type: 'tool_result',
        callId: 'b',
        name: 'read_file',
        durationMs: 0,
        ok: true,
        result: { tool: 'read_file', value: '2' },
      },
    ]);

    const expectedHistory: ConversationItem[] = [
      { type: 'user_text', text: 'hello' },
      { type: 'assistant_text', text: 'Let me write. ' },
      { type: 'tool_call', callId: 'a', name: 'write_note', arguments: '{"value":"1"}' },
      {
        type: 'tool_result',
        callId: 'a',
        name: 'write_note',
        ok: true,
        output: '{"tool":"write_note","value":"1"}',
      },
      { type: 'tool_call', callId: 'b', name: 'read_file', arguments: '{"value":"2"}' },
      {
        type: 'tool_result',
        callId: 'b',
        name: 'read_file',
        ok: true,
        output: '{"tool":"read_file","value":"2"}',
      },
      { type: 'assistant_text', text: 'All done.' },
    ];
    expect(saved).toEqual(expectedHistory);
    expect(provider.requests.map((request) => request.history)).toEqual([
      expectedHistory.slice(0, 1),
      expectedHistory.slice(0, 4),
      expectedHistory.slice(0, 6),
    ]);
    expect(provider.requests.map((request) => request.tools.map((tool) => tool.name))).toEqual([
      ['read_file', 'grep', 'write_note', 'slow', 'stubborn', 'big'],
      ['read_file', 'grep', 'write_note', 'slow', 'stubborn', 'big'],
      ['read_file', 'grep', 'write_note', 'slow', 'stubborn', 'big'],
    ]);
    expect(provider.requests.every((request) => request.systemPrompt === 'SYSTEM')).toBe(true);
  });

  test('continues an earlier history and keeps provider items and call providerData in stream order', async () => {
    const earlier: ConversationItem[] = [
      { type: 'user_text', text: 'before' },
      { type: 'assistant_text', text: 'earlier answer' },
    ];
    const response: ProviderEvent[] = [
      { type: 'provider_item', provider: 'openai', data: { id: 'rs_1' } },
      { type: 'tool_call_started', callId: 'g', name: 'grep' },
      { type: 'tool_call_completed', callId: 'g', name: 'grep', arguments: '{}', providerData: { sig: 's' } },
      { type: 'finish', reason: 'stop' },
    ];
    const { provider, saved, parameters } = await setUp([response, textResponse('ok')], { history: earlier });
    await collect(runModelLoop(parameters));
    expect(provider.requests[1]?.history).toEqual([
      ...earlier,
      { type: 'user_text', text: 'hello' },
      { type: 'provider_item', provider: 'openai', data: { id: 'rs_1' } },
      { type: 'tool_call', callId: 'g', name: 'grep', arguments: '{}', providerData: { sig: 's' } },
      { type: 'tool_result', callId: 'g', name: 'grep', ok: true, output: '{"tool":"grep","value":null}' },
    ]);
    expect(saved[0]).toEqual({ type: 'user_text', text: 'hello' });
  });
});

describe('runModelLoop: concurrency', () => {
  const cases = [
    { title: 'read-only calls run concurrently', names: ['read_file', 'grep', 'read_file'], maxActive: 3 },
    {
      title: 'a writing call makes the response sequential',
      names: ['read_file', 'write_note'],
      maxActive: 1,
    },
    { title: 'unknown tools count as not read-only', names: ['grep', 'nope'], maxActive: 1 },
  ];
  for (const { title, names, maxActive } of cases) {
    test(title, async () => {
      const calls = names.map((name, index) => ({ id: `c${index}`, name, arguments: { value: '3' } }));
      const { probe, parameters } = await setUp([toolCallsResponse(calls), textResponse('ok')]);
      const events = await collect(runModelLoop(parameters));
      expect(probe.maxActive).toBe(maxActive);
      expect(toolResults(events).map((event) => event.callId)).toEqual(calls.map((call) => call.id));
    });
  }

  test('a tool the loop has never heard of runs concurrently because it declares readOnly', async () => {
    const peek = { active: 0, maxActive: 0 };
    const declared = (traits?: ToolTraits) =>
      makeTool({
        name: traits ? 'peek_notes' : 'peek_undeclared',
        ...(traits ? { traits } : {}),
        execute: async () => {
          peek.active += 1;
          peek.maxActive = Math.max(peek.maxActive, peek.active);
          await yieldTurns(3);
          peek.active -= 1;
          return { peeked: true };
        },
      });
    for (const [name, maxActive] of [
      ['peek_notes', 3],
      ['peek_undeclared', 1],
    ] as const) {
      peek.maxActive = 0;
      const calls = [0, 1, 2].map((index) => ({ id: `p${index}`, name, arguments: {} }));
      const { parameters } = await setUp([toolCallsResponse(calls), textResponse('ok')], {}, [
        declared(readOnlyLocalTraits('json')),
        declared(),
      ]);
      const events = await collect(runModelLoop(parameters));
      expect(toolResults(events).map((event) => [event.callId, event.ok])).toEqual([
        ['p0', true],
        ['p1', true],
        ['p2', true],
      ]);
      expect(peek.maxActive).toBe(maxActive);
    }
  });

  test('results go back in call order even when a later call finishes first', async () => {
    // c0 runs 20 turns, c1 one turn, c2 five turns: completion order is c1, c2, c0.
    const calls = [
      { id: 'c0', name: 'read_file', arguments: { value: '20' } },
      { id: 'c1', name: 'grep', arguments: { value: '1' } },
      { id: 'c2', name: 'read_file', arguments: { value: '5' } },
    ];
    const { provider, saved, parameters } = await setUp([toolCallsResponse(calls), textResponse('ok')]);
    const events = await collect(runModelLoop(parameters));
    expect(toolResults(events).map((event) => event.callId)).toEqual(['c0', 'c1', 'c2']);
    const resultIds = (items: readonly ConversationItem[]) =>
      items.flatMap((item) => (item.type === 'tool_result' ? [item.callId] : []));
    expect(resultIds(saved)).toEqual(['c0', 'c1', 'c2']);
    expect(resultIds(provider.requests[1]?.history ?? [])).toEqual(['c0', 'c1', 'c2']);
  });
});

describe('runModelLoop: arguments', () => {
  test('invalid JSON arguments become a validation_failed result and the turn goes on', async () => {
    const { probe, saved, parameters } = await setUp([
      toolCallsResponse([
        { id: 'bad', name: 'write_note', arguments: '{"value": "1"' },
        { id: 'empty', name: 'write_note', arguments: '' },
      ]),
      textResponse('Sorry.'),
    ]);
    const events = await collect(runModelLoop(parameters));
    const [bad, empty] = toolResults(events);
    expect(bad).toMatchObject({ callId: 'bad', ok: false, error: { classification: 'validation_failed' } });
    const message = bad?.ok === false ? bad.error.message : '';
    expect(message).toContain('The arguments of this "write_note" call are not valid JSON');
    expect(message).toContain('Received: {"value": "1"');
    expect(empty).toMatchObject({ callId: 'empty', ok: true, result: { tool: 'write_note', value: null } });
    expect(probe.started).toEqual(['write_note']);
    expect(saved.find((item) => item.type === 'tool_result' && item.callId === 'bad')).toMatchObject({
      ok: false,
      output: expect.stringContaining('"classification":"validation_failed"'),
    });
    expect(last(events)).toEqual({ type: 'done', reason: 'completed' });
  });

  test('arguments the tool does not declare are refused by executeTool and reported', async () => {
    const { parameters } = await setUp([
      toolCallsResponse([{ id: 'x', name: 'grep', arguments: { valu: 'typo' } }]),
      textResponse('ok'),
    ]);
    const [result] = toolResults(await collect(runModelLoop(parameters)));
    expect(result).toMatchObject({ ok: false, error: { classification: 'validation_failed' } });
  });
});

describe('runModelLoop: iteration limit', () => {
  test('withholds tools on the last iteration and ends with max_iterations if the model still calls them', async () => {
    // The model calls the same tool on every request, however many there are.
    const repeating = new ScriptedProvider([], {
      repeat: toolCallsResponse([{ id: 'r', name: 'read_file' }]),
    });
    const { probe, saved, parameters } = await setUp([], { limits: { maxIterations: 3 } });
    const events = await collect(runModelLoop({ ...parameters, provider: repeating }));

    expect(repeating.requests.map((request) => request.tools.length)).toEqual([6, 6, 0]);
    expect(repeating.requests.map((request) => request.systemPrompt)).toEqual([
      'SYSTEM',
      'SYSTEM',
      `SYSTEM\n\n${buildFinalIterationNotice(3)}`,
    ]);
    expect(probe.started).toEqual(['read_file', 'read_file']);
    expect(last(events)).toEqual({
      type: 'done',
      reason: 'max_iterations',
      message: 'The model still called tools after 3 model calls; the turn stopped.',
    });
    // The unrun call still gets a result, so the history stays consistent for the next turn.
    expect(saved.slice(-2)).toEqual([
      { type: 'tool_call', callId: 'r', name: 'read_file', arguments: '{}' },
      {
        type: 'tool_result',
        callId: 'r',
        name: 'read_file',
        ok: false,
        output: JSON.stringify({
          error: {
            classification: 'cancelled',
            message:
              'Not run: this turn reached its limit of 3 model calls before the call could run. Ask the user whether to continue.',
          },
        }),
      },
    ]);
  });

  test('an answer on the last iteration completes the turn', async () => {
    const { provider, parameters } = await setUp(
      [toolCallsResponse([{ id: 'r', name: 'read_file' }]), textResponse('Here it is.')],
      { limits: { maxIterations: 2 } },
    );
    const events = await collect(runModelLoop(parameters));
    expect(provider.requests[1]?.tools).toEqual([]);
    expect(last(events)).toEqual({ type: 'done', reason: 'completed' });
  });
});

describe('runModelLoop: result size budget', () => {
  test('a result over the budget is cut with a marker telling the model how to ask for less', async () => {
    const { provider, parameters } = await setUp(
      [toolCallsResponse([{ id: 'big', name: 'big', arguments: { value: '300000' } }]), textResponse('ok')],
      {},
    );
    const events = await collect(runModelLoop(parameters));
    const result = provider.requests[1]?.history.find((item) => item.type === 'tool_result');
    const output = result?.type === 'tool_result' ? result.output : '';
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(100 * 1024);
    expect(output.startsWith('{"text":"xxxx')).toBe(true);
    expect(output).toContain('[cut: this tool result is 300011 bytes, over the 102400-byte limit');
    expect(output).toContain('; ask for less');
    // The client still sees the whole result.
    expect(toolResults(events)[0]).toMatchObject({ ok: true, result: { text: 'x'.repeat(300000) } });
  });

  test('the budget comes from the limits parameter', async () => {
    const { provider, parameters } = await setUp(
      [toolCallsResponse([{ id: 'big', name: 'big', arguments: { value: '5000' } }]), textResponse('ok')],
      { limits: { maxToolOutputBytes: 2000 } },
    );
    await collect(runModelLoop(parameters));
    const result = provider.requests[1]?.history.find((item) => item.type === 'tool_result');
    const output = result?.type === 'tool_result' ? result.output : '';
    expect(Buffer.byteLength(output)).toBeLessThanOrEqual(2000);
    expect(output).toContain('over the 2000-byte limit');
  });
});

describe('runModelLoop: provider failures', () => {
  const cases: { title: string; step: ScriptStep; message: string }[] = [
    {
      title: 'a provider finish{error}',
      step: [
        { type: 'text_delta', delta: 'Partial' },
        { type: 'finish', reason: 'error', message: 'HTTP 500' },
      ],
      message: 'HTTP 500',
    },
    {
      title: 'a stream that ends in the middle of a call without finish',
      step: [
        { type: 'text_delta', delta: 'Partial' },
        ...toolCallEvents({ id: 'ok', name: 'write_note' }),
        { type: 'tool_call_started', callId: 'cut', name: 'write_note' },
        { type: 'tool_call_arguments_delta', callId: 'cut', delta: '{"val' },
      ],
      message: 'The provider stream ended without a finish event.',
    },
    {
      title: 'a finish while a call is still open',
      step: [
        { type: 'text_delta', delta: 'Partial' },
        ...toolCallEvents({ id: 'ok', name: 'write_note' }),
        { type: 'tool_call_started', callId: 'cut', name: 'write_note' },
        { type: 'finish', reason: 'tool_calls' },
      ],
      message: "The model's stream ended in the middle of a tool call (write_note); nothing was run.",
    },
    {
      title: 'a stream that throws',
      step: async function* () {
        yield { type: 'text_delta', delta: 'Partial' } as const;
        throw new Error('socket hang up');
      },
      message: 'The provider failed: socket hang up',
    },
  ];
  for (const { title, step, message } of cases) {
    test(`${title} ends the turn with error and runs nothing`, async () => {
      const { probe, saved, parameters } = await setUp([step]);
      const events = await collect(runModelLoop(parameters));
      expect(last(events)).toEqual({ type: 'done', reason: 'error', message });
      expect(probe.started).toEqual([]);
      expect(toolResults(events)).toEqual([]);
      expect(saved).toEqual([
        { type: 'user_text', text: 'hello' },
        { type: 'assistant_text', text: 'Partial' },
      ]);
    });
  }

  test('a failing onItem ends the turn with error', async () => {
    const { parameters } = await setUp([toolCallsResponse([{ id: 'a', name: 'write_note' }])], {
      onItem: (item) => {
        if (item.type === 'tool_result') throw new Error('disk full');
      },
    });
    const events = await collect(runModelLoop(parameters));
    expect(last(events)).toEqual({
      type: 'done',
      reason: 'error',
      message: 'The conversation could not be saved: disk full',
    });
  });
});

describe('runModelLoop: cancellation', () => {
  async function cancelWhen(steps: readonly ScriptStep[], shouldCancel: (event: TurnEvent) => boolean) {
    const controller = new AbortController();
    const context = await setUp(steps, { signal: controller.signal });
    const events: TurnEvent[] = [];
    let cancelledAt = 0;
    for await (const event of runModelLoop(context.parameters)) {
      events.push(event);
      if (cancelledAt === 0 && shouldCancel(event)) {
        cancelledAt = performance.now();
        controller.abort();
      }
    }
    return { ...context, events, elapsedMs: performance.now() - cancelledAt };
  }

  const cases: { title: string; tool: string; abortedSeen: string[] }[] = [
    { title: 'a tool that honours its signal', tool: 'slow', abortedSeen: ['slow'] },
    { title: 'a tool that ignores its signal', tool: 'stubborn', abortedSeen: [] },
  ];
  for (const { title, tool, abortedSeen } of cases) {
    test(`cancel during ${title} ends the turn with cancelled within a second`, async () => {
      const { events, elapsedMs, probe, saved } = await cancelWhen(
        [
          toolCallsResponse([
            { id: 't', name: tool },
            { id: 'after', name: 'write_note' },
          ]),
        ],
        (event) => event.type === 'tool_progress',
      );
      expect(elapsedMs).toBeLessThan(1000);
      expect(events.find((event) => event.type === 'tool_progress')).toEqual({
        type: 'tool_progress',
        callId: 't',
        name: tool,
        progress: { type: 'started' },
      });
      expect(
        toolResults(events).map((event) => [event.callId, event.ok ? 'ok' : event.error.classification]),
      ).toEqual([
        ['t', 'cancelled'],
        ['after', 'cancelled'],
      ]);
      expect(probe.aborted).toEqual(abortedSeen);
      expect(probe.started).toEqual([]); // write_note never started
      expect(last(events)).toEqual({ type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' });
      expect(saved.filter((item) => item.type === 'tool_result').length).toBe(2);
    });
  }

  test('cancel while a provider that honours its signal streams', async () => {
    const { events, elapsedMs, saved } = await cancelWhen(
      [hangUntilAborted([{ type: 'text_delta', delta: 'Thinking' }])],
      (event) => event.type === 'text_delta',
    );
    expect(elapsedMs).toBeLessThan(1000);
    expect(last(events)).toEqual({ type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' });
    expect(saved).toEqual([
      { type: 'user_text', text: 'hello' },
      { type: 'assistant_text', text: 'Thinking' },
    ]);
  });

  test('cancel while a provider that ignores its signal hangs', async () => {
    const { events, elapsedMs, provider } = await cancelWhen(
      [hangForever([{ type: 'tool_call_started', callId: 'x', name: 'write_note' }])],
      (event) => event.type === 'tool_call_started',
    );
    expect(elapsedMs).toBeLessThan(1000);
    expect(provider.requests[0]?.signal.aborted).toBe(true);
    expect(last(events)).toEqual({ type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' });
  });

  test('a signal aborted before the turn starts saves nothing', async () => {
    const controller = new AbortController();
    controller.abort();
    const { provider, saved, parameters } = await setUp([textResponse('x')], { signal: controller.signal });
    expect(await collect(runModelLoop(parameters))).toEqual([
      { type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' },
    ]);
    expect(saved).toEqual([]);
    expect(provider.requests).toEqual([]);
  });

  test('a consumer that stops iterating stops the running tools', async () => {
    const { probe, parameters } = await setUp([toolCallsResponse([{ id: 't', name: 'slow' }])]);
    const turn = runModelLoop(parameters);
    for await (const event of turn) if (event.type === 'tool_progress') break;
    expect(probe.aborted).toEqual(['slow']);
  });
});
