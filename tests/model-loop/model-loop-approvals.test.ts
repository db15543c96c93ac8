/**
 * The turn loop's approval step with a scripted gate (no database): a call that asks waits for the
 * gate, emitting one `tool_approval_requested` and one `tool_approval_resolved` (with the rule the user
 * saved, when they saved one); the call's execution and its time budget start only once approved; a
 * later call of a sequential response waits behind a waiting one, while the read-only calls of a
 * response ask side by side; a call that fails validation or whose tool is disabled is never asked
 * about; without a gate the call is denied; each way a wait can end maps to its result; a remembered
 * rule applies to the rest of the turn.
 */
import { describe, expect, test } from 'bun:test';
import {
  NO_GATE_MESSAGE,
  type ToolApprovalGate,
  type ToolApprovalOutcome,
  type ToolApprovalQuestion,
} from '../../src/approvals/tool-approval-gate.ts';
import type { TurnEvent } from '../../src/contracts/turn-event.ts';
import { type ModelLoopParameters, runModelLoop } from '../../src/model-loop/model-loop.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { SHELL_APPROVAL_SETTINGS } from '../../src/tools/shell/shell-approval-settings.ts';
import { defaultSettingValues, describeSettings } from '../../src/tools/tool-settings.ts';
import { readOnlyLocalTraits } from '../../src/tools/tool-traits.ts';
import type { SavedToolSettings } from '../../src/tools/types.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../helpers/scripted-provider.ts';
import { makeReachableSet } from '../helpers/tool-context.ts';
import { loadRuntime } from '../helpers/turn-tools.ts';
import { nextTurn } from '../helpers/wait-until.ts';

/** A gate whose answers the test gives by hand, recording each question in order. */
function manualGate() {
  const asked: { question: ToolApprovalQuestion; answer: (outcome: ToolApprovalOutcome) => void }[] = [];
  const waiters: (() => void)[] = [];
  const gate: ToolApprovalGate = {
    async ask(question, signal) {
      let answer: (outcome: ToolApprovalOutcome) => void = () => {};
      const promise = new Promise<ToolApprovalOutcome>((resolve) => {
        answer = resolve;
        signal.addEventListener('abort', () => resolve({ decision: 'denied', by: 'cancel' }), { once: true });
      });
      asked.push({ question, answer });
      for (const wake of waiters.splice(0)) wake();
      return {
        pending: {
          ...question,
          requestedAt: '2026-12-01T00:00:00.000Z',
          expiresAt: '2026-12-01T00:10:00.000Z',
        },
        answer: promise,
      };
    },
  };
  /** Resolves once `count` questions were asked. */
  const askedCount = async (count: number) => {
    while (asked.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return { gate, asked, askedCount };
}

async function setUp(
  steps: Parameters<typeof toolCallsResponse>[0][],
  saved: Record<string, SavedToolSettings> = {},
) {
  const ran: string[] = [];
  const registry = new ToolRegistry();
  for (const name of ['risky', 'other']) {
    registry.register(
      makeTool({
        name,
        traits: undefined,
        execute: async (args) => {
          ran.push(`${name}:${(args as { value?: string }).value}`);
          return { ran: true };
        },
      }),
    );
  }
  const bash = makeTool({
    name: 'bash',
    traits: undefined,
    definition: {
      name: 'bash',
      description: 'A stand-in shell: records the command.',
      parameters: {
        type: 'object',
        properties: { command: { type: 'string', minLength: 1 } },
        required: ['command'],
        additionalProperties: false,
      },
    },
    execute: async (args) => {
      ran.push(`bash:${(args as { command: string }).command}`);
      return { ran: true };
    },
  });
  bash.settings = {
    ...bash.settings,
    defaultParameters: defaultSettingValues(SHELL_APPROVAL_SETTINGS),
    parameterDescriptors: describeSettings(SHELL_APPROVAL_SETTINGS),
  };
  registry.register(bash);
  // Read-only, yet asking (as after a user set its approval to "always").
  registry.register(
    makeTool({
      name: 'peek',
      traits: { ...readOnlyLocalTraits('json'), approvalDefault: 'always' },
      execute: async (args) => {
        ran.push(`peek:${(args as { value?: string }).value}`);
        return { ran: true };
      },
    }),
  );
  const provider = new ScriptedProvider([
    ...steps.map((calls) => toolCallsResponse(calls)),
    textResponse('ok'),
  ]);
  const parameters: ModelLoopParameters = {
    provider,
    model: 'm',
    history: [],
    userText: 'go',
    tools: await loadRuntime(registry, 'u1', saved),
    toolContext: { userId: 'u1', reachable: makeReachableSet(), chatId: 'c1' },
    now: () => 1000,
    executeOptions: { registry },
  };
  return { parameters, ran, provider };
}

async function collect(events: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const all: TurnEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}
const approvalEvents = (events: TurnEvent[]) =>
  events.filter((event) => event.type.startsWith('tool_approval') || event.type === 'tool_result');

describe('runModelLoop approvals', () => {
  test('without a gate, a call that asks is denied and does not run; one that does not ask runs', async () => {
    const { parameters, ran } = await setUp([[{ id: 'a', name: 'risky', arguments: { value: '1' } }]], {
      other: { parameters: { approval: 'never' } },
    });
    const events = await collect(runModelLoop(parameters));
    expect(ran).toEqual([]);
    expect(approvalEvents(events)).toEqual([
      {
        type: 'tool_result',
        callId: 'a',
        name: 'risky',
        durationMs: 0,
        ok: false,
        error: { classification: 'denied', message: NO_GATE_MESSAGE },
      },
    ]);
  });

  test('the call waits for the answer; a later call of the response waits behind it', async () => {
    const { parameters, ran } = await setUp([
      [
        { id: 'a', name: 'risky', arguments: { value: '1' } },
        { id: 'b', name: 'risky', arguments: { value: '2' } },
      ],
    ]);
    const { gate, asked, askedCount } = manualGate();
    const turn = collect(runModelLoop({ ...parameters, approvals: gate }));
    await askedCount(1);
    expect(asked.map((entry) => entry.question)).toEqual([
      {
        callId: 'a',
        name: 'risky',
        arguments: { value: '1' },
        reason: 'risky asks before every call ("approval" is "always").',
        timeoutSeconds: 600,
      },
    ]);
    expect(ran).toEqual([]);
    asked[0]!.answer({ decision: 'approved', by: 'user' });
    await askedCount(2);
    // The first ran once approved, the second was asked only after it.
    expect(ran).toEqual(['risky:1']);
    asked[1]!.answer({ decision: 'denied', by: 'user', reason: 'Once is enough.' });
    const events = await turn;
    expect(ran).toEqual(['risky:1']);
    expect(approvalEvents(events).map((event) => [event.type, (event as { callId: string }).callId])).toEqual(
      [
        ['tool_approval_requested', 'a'],
        ['tool_approval_resolved', 'a'],
        ['tool_result', 'a'],
        ['tool_approval_requested', 'b'],
        ['tool_approval_resolved', 'b'],
        ['tool_result', 'b'],
      ],
    );
    expect(events.find((event) => event.type === 'tool_approval_requested')).toEqual({
      type: 'tool_approval_requested',
      callId: 'a',
      name: 'risky',
      arguments: { value: '1' },
      reason: 'risky asks before every call ("approval" is "always").',
      expiresAt: '2026-12-01T00:10:00.000Z',
    });
    expect(events.filter((event) => event.type === 'tool_result').at(-1)).toMatchObject({
      ok: false,
      error: { classification: 'denied', message: 'The user denied this call: Once is enough.' },
    });
  });

  test('read-only calls of one response ask side by side; their results keep the call order', async () => {
    const { parameters, ran } = await setUp([
      [
        { id: 'a', name: 'peek', arguments: { value: '1' } },
        { id: 'b', name: 'peek', arguments: { value: '2' } },
      ],
    ]);
    const { gate, asked, askedCount } = manualGate();
    const turn = collect(runModelLoop({ ...parameters, approvals: gate }));
    // Both are asked before either is answered.
    await askedCount(2);
    expect(asked.map((entry) => entry.question.callId)).toEqual(['a', 'b']);
    asked[1]!.answer({ decision: 'approved', by: 'user' });
    asked[0]!.answer({ decision: 'denied', by: 'user' });
    const events = await turn;
    expect(ran).toEqual(['peek:2']);
    expect(
      events.filter((event) => event.type === 'tool_result').map((event) => [event.callId, event.ok]),
    ).toEqual([
      ['a', false],
      ['b', true],
    ]);
  });

  test('a call that fails validation, or whose tool is disabled, is not asked about', async () => {
    const { parameters } = await setUp(
      [
        [
          { id: 'a', name: 'risky', arguments: { value: 3 } },
          { id: 'b', name: 'other', arguments: {} },
        ],
      ],
      { other: { enabled: false } },
    );
    const { gate, asked } = manualGate();
    const events = await collect(runModelLoop({ ...parameters, approvals: gate }));
    expect(asked).toEqual([]);
    expect(
      events
        .filter((event) => event.type === 'tool_result')
        .map((event) => (event as { error: { classification: string } }).error.classification),
    ).toEqual(['validation_failed', 'tool_disabled']);
  });

  test.each([
    [
      { decision: 'denied', by: 'timeout' } as const,
      'denied',
      'Nobody answered the approval question within 600 seconds (approvalTimeoutSeconds), so the call was denied and not run.',
    ],
    [{ decision: 'denied', by: 'user' } as const, 'denied', 'The user denied this call.'],
    [
      { decision: 'denied', by: 'interrupted' } as const,
      'cancelled',
      'The turn was interrupted (its server lost the chat) while the call waited for approval.',
    ],
  ])('an answer %j gives a %s result', async (outcome, classification, message) => {
    const { parameters, ran } = await setUp([[{ id: 'a', name: 'risky', arguments: {} }]]);
    const gate: ToolApprovalGate = {
      ask: async (question) => ({
        pending: { ...question, requestedAt: 'r', expiresAt: 'e' },
        answer: Promise.resolve(outcome),
      }),
    };
    const events = await collect(runModelLoop({ ...parameters, approvals: gate }));
    expect(ran).toEqual([]);
    expect(events.find((event) => event.type === 'tool_approval_resolved')).toEqual({
      type: 'tool_approval_resolved',
      callId: 'a',
      name: 'risky',
      ...outcome,
    });
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
      ok: false,
      error: { classification, message },
    });
  });

  test('a gate that cannot record the question denies the call', async () => {
    const { parameters, ran } = await setUp([[{ id: 'a', name: 'risky', arguments: {} }]]);
    const gate: ToolApprovalGate = {
      ask: async () => {
        throw new Error('database gone');
      },
    };
    const events = await collect(runModelLoop({ ...parameters, approvals: gate }));
    expect(ran).toEqual([]);
    expect(events.filter((event) => event.type.startsWith('tool_approval'))).toEqual([]);
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
      error: {
        classification: 'denied',
        message: 'The approval question could not be recorded (database gone), so the call was not run.',
      },
    });
  });

  test('cancel while waiting: the call is cancelled, the next one is not asked, the turn ends cancelled', async () => {
    const { parameters, ran } = await setUp([
      [
        { id: 'a', name: 'risky', arguments: {} },
        { id: 'b', name: 'risky', arguments: {} },
      ],
    ]);
    const { gate, asked, askedCount } = manualGate();
    const controller = new AbortController();
    const turn = collect(runModelLoop({ ...parameters, approvals: gate, signal: controller.signal }));
    await askedCount(1);
    controller.abort();
    const events = await turn;
    expect(ran).toEqual([]);
    expect(asked).toHaveLength(1);
    expect(events.filter((event) => event.type === 'tool_result')).toMatchObject([
      {
        callId: 'a',
        error: {
          classification: 'cancelled',
          message: 'The turn was cancelled while the call waited for approval.',
        },
      },
      {
        callId: 'b',
        error: { classification: 'cancelled', message: 'Tool "risky" was cancelled before it started.' },
      },
    ]);
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' });
  });

  test('a rule remembered with an approval applies to the later calls of the turn', async () => {
    const { parameters, ran } = await setUp([
      [{ id: 'a', name: 'bash', arguments: { command: 'git status' } }],
      [{ id: 'b', name: 'bash', arguments: { command: 'git status --short' } }],
    ]);
    const { gate, asked, askedCount } = manualGate();
    const turn = collect(runModelLoop({ ...parameters, approvals: gate }));
    await askedCount(1);
    asked[0]!.answer({
      decision: 'approved',
      by: 'user',
      remembered: { setting: 'autoApprovedCommands', rule: 'git status' },
    });
    const events = await turn;
    expect(asked).toHaveLength(1);
    expect(ran).toEqual(['bash:git status', 'bash:git status --short']);
    expect(events.filter((event) => event.type === 'tool_approval_resolved')).toEqual([
      {
        type: 'tool_approval_resolved',
        callId: 'a',
        name: 'bash',
        decision: 'approved',
        by: 'user',
        remembered: { setting: 'autoApprovedCommands', rule: 'git status' },
      },
    ]);
  });

  test('the time budget starts when the call is approved, not while it waits', async () => {
    const { parameters, ran } = await setUp([[{ id: 'a', name: 'risky', arguments: { value: '1' } }]]);
    const budgets: number[] = [];
    const timers = {
      setTimeout: (_callback: () => void, milliseconds: number) => {
        budgets.push(milliseconds);
        return budgets.length;
      },
      clearTimeout: () => {},
    };
    const { gate, asked, askedCount } = manualGate();
    const turn = collect(
      runModelLoop({
        ...parameters,
        approvals: gate,
        executeOptions: { ...parameters.executeOptions, timers },
      }),
    );
    await askedCount(1);
    // Let the loop settle while the call waits (its timers are the manual ones above, so one turn of the
    // event loop runs everything it would do before the answer): no budget was started for it.
    await nextTurn();
    expect(budgets).toEqual([]);
    asked[0]!.answer({ decision: 'approved', by: 'user' });
    await turn;
    expect(ran).toEqual(['risky:1']);
    expect(budgets).toEqual([30_000]);
  });
});
