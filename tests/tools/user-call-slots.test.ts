/**
 * Per-user tool call slots, alone and through `executeTool`: past the limit a call waits and starts
 * when one of the user's calls ends, waiting calls start in the order they asked, a freed slot goes to
 * the oldest waiter before any newcomer, a call's budget starts only once it holds a slot, a cancel
 * while waiting ends the call `cancelled` without running it, a wait is reported as progress, and
 * another user's calls are never held.
 */
import { describe, expect, test } from 'bun:test';
import type { ToolProgressEvent } from '../../src/contracts/tool-progress-event.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { ToolCallContext, ToolExecutionResult } from '../../src/tools/types.ts';
import { type CallSlot, UserCallSlots } from '../../src/tools/user-call-slots.ts';
import { blockingTool } from '../helpers/fake-tools.ts';
import { manualTimers } from '../helpers/manual-timers.ts';
import { makeReachableSet } from '../helpers/tool-context.ts';
import { waitUntil } from '../helpers/wait-until.ts';

/** `block` (`tests/helpers/fake-tools.ts`) alone in a registry. */
function blockingTools() {
  const tools = blockingTool();
  const registry = new ToolRegistry();
  registry.register(tools.tool);
  return { registry, started: tools.started, release: tools.release };
}

const reachable = makeReachableSet();
const contextOf = (userId: string, extra: Partial<ToolCallContext> = {}): ToolCallContext => ({
  userId,
  chatId: `chat-of-${userId}`,
  reachable,
  ...extra,
});

describe('UserCallSlots', () => {
  test('a freed slot goes to the oldest waiter: a newcomer asking right after queues behind it', async () => {
    const slots = new UserCallSlots(1);
    const first = (await slots.acquire('u1'))!;
    const waiter = slots.acquire('u1');
    first.release();
    const newcomer = slots.acquire('u1');
    expect({ running: slots.running('u1'), waiting: slots.waiting('u1') }).toEqual({
      running: 1,
      waiting: 1,
    });
    const granted = (await waiter)!;
    granted.release();
    (await newcomer)!.release();
    expect({ running: slots.running('u1'), waiting: slots.waiting('u1') }).toEqual({
      running: 0,
      waiting: 0,
    });
  });

  test('release is idempotent; a signal already fired gets no slot and joins no queue', async () => {
    const slots = new UserCallSlots(2);
    const [a, b] = [(await slots.acquire('u1'))!, (await slots.acquire('u1'))!];
    a.release();
    a.release();
    expect(slots.running('u1')).toBe(1);
    const aborted = new AbortController();
    aborted.abort();
    expect(await slots.acquire('u1', aborted.signal)).toBeUndefined();
    expect({ running: slots.running('u1'), waiting: slots.waiting('u1') }).toEqual({
      running: 1,
      waiting: 0,
    });
    b.release();
    expect(slots.running('u1')).toBe(0);
  });

  test('the listener hears once how many run and wait ahead; the limit must be a whole number ≥ 1', async () => {
    const slots = new UserCallSlots(1);
    const heard: unknown[] = [];
    const held: CallSlot = (await slots.acquire('u1', undefined, (wait) => heard.push(wait)))!;
    const second = slots.acquire('u1', undefined, (wait) => heard.push(wait));
    const third = slots.acquire('u1', undefined, (wait) => heard.push(wait));
    expect(heard).toEqual([
      { running: 1, ahead: 0, limit: 1 },
      { running: 1, ahead: 1, limit: 1 },
    ]);
    held.release();
    (await second)!.release();
    (await third)!.release();
    for (const limit of [0, 1.5, Number.NaN]) {
      expect(() => new UserCallSlots(limit)).toThrow(
        `The tool call limit per user must be a whole number of at least 1, got ${limit}.`,
      );
    }
  });
});

describe('executeTool with call slots', () => {
  test('the ninth call of a user waits, and starts when one of the eight ends', async () => {
    const tools = blockingTools();
    const callSlots = new UserCallSlots(8);
    const run = (value: string) =>
      executeTool('block', { value }, contextOf('u1'), undefined, { registry: tools.registry, callSlots });
    const calls = Array.from({ length: 8 }, (_, index) => run(`c${index + 1}`));
    expect(await waitUntil(() => tools.started.length === 8, 5_000)).toBe(true);
    const ninth = run('c9');
    expect(await waitUntil(() => callSlots.waiting('u1') === 1, 5_000)).toBe(true);
    expect(tools.started).toEqual(['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7', 'c8']);

    tools.release('c3');
    expect(await calls[2]).toEqual({ ok: true, result: { done: 'c3' } });
    expect(await waitUntil(() => tools.started.length === 9, 5_000)).toBe(true);
    expect(tools.started.at(-1)).toBe('c9');
    expect(callSlots.running('u1')).toBe(8);

    for (const value of ['c1', 'c2', 'c4', 'c5', 'c6', 'c7', 'c8', 'c9']) tools.release(value);
    expect(await ninth).toEqual({ ok: true, result: { done: 'c9' } });
    expect((await Promise.all(calls)).every((result) => result.ok)).toBe(true);
    expect(callSlots.running('u1')).toBe(0);
  });

  test('waiting calls start in the order they asked (FIFO)', async () => {
    const tools = blockingTools();
    const callSlots = new UserCallSlots(2);
    const run = (value: string) =>
      executeTool('block', { value }, contextOf('u1'), undefined, { registry: tools.registry, callSlots });
    const results = [run('a'), run('b')];
    expect(await waitUntil(() => tools.started.length === 2, 5_000)).toBe(true);
    for (const value of ['w1', 'w2', 'w3']) {
      results.push(run(value));
      // Each asks only once the one before is queued, so the order they asked in is known.
      expect(await waitUntil(() => callSlots.waiting('u1') === Number(value.slice(1)), 5_000)).toBe(true);
    }
    for (const [value, startedCount] of [
      ['a', 3],
      ['b', 4],
      ['w1', 5],
    ] as const) {
      tools.release(value);
      expect(await waitUntil(() => tools.started.length === startedCount, 5_000)).toBe(true);
    }
    expect(tools.started).toEqual(['a', 'b', 'w1', 'w2', 'w3']);
    for (const value of ['w2', 'w3']) tools.release(value);
    expect((await Promise.all(results)).map((result) => result.ok)).toEqual([true, true, true, true, true]);
  });

  test("a call's budget starts when it gets its slot, not while it waits", async () => {
    const tools = blockingTools();
    const callSlots = new UserCallSlots(1);
    const { timers, pending } = manualTimers();
    const run = (value: string) =>
      executeTool('block', { value }, contextOf('u1'), undefined, {
        registry: tools.registry,
        callSlots,
        timers,
      });
    const first = run('first');
    expect(await waitUntil(() => tools.started.length === 1, 5_000)).toBe(true);
    const waiting = run('waiting');
    expect(await waitUntil(() => callSlots.waiting('u1') === 1, 5_000)).toBe(true);
    // Only the running call's budget is set: the waiter's has not begun.
    expect(pending.map((timer) => [timer.milliseconds, timer.cleared])).toEqual([[30_000, false]]);

    // The running call spends its whole budget; the waiter, had its budget run meanwhile, would too.
    pending[0]!.callback();
    expect(await first).toEqual({
      ok: false,
      error: {
        classification: 'timeout',
        message:
          'Tool "block" ran out of its 30-second budget (timeoutSeconds) and was stopped. Try a smaller or faster request, or ask the user to raise the timeout in the tool settings.',
      },
    });
    expect(await waitUntil(() => tools.started.length === 2, 5_000)).toBe(true);
    // Its own full budget, set when it started.
    expect(pending.map((timer) => [timer.milliseconds, timer.cleared])).toEqual([
      [30_000, true],
      [30_000, false],
    ]);
    tools.release('waiting');
    expect(await waiting).toEqual({ ok: true, result: { done: 'waiting' } });
  });

  test('a cancel while waiting ends the call cancelled; it never runs and leaves the queue', async () => {
    const tools = blockingTools();
    const callSlots = new UserCallSlots(1);
    const run = (value: string, signal?: AbortSignal) =>
      executeTool('block', { value }, contextOf('u1', signal ? { signal } : {}), undefined, {
        registry: tools.registry,
        callSlots,
      });
    const running = run('running');
    expect(await waitUntil(() => tools.started.length === 1, 5_000)).toBe(true);
    const controller = new AbortController();
    const cancelled = run('cancelled', controller.signal);
    const after = run('after');
    expect(await waitUntil(() => callSlots.waiting('u1') === 2, 5_000)).toBe(true);

    controller.abort();
    expect(await cancelled).toEqual({
      ok: false,
      error: {
        classification: 'cancelled',
        message:
          'Tool "block" was cancelled while it waited for a free slot (MANGO_USER_MAX_TOOL_CALLS); it never ran.',
      },
    });
    expect(callSlots.waiting('u1')).toBe(1);
    tools.release('running');
    expect(await waitUntil(() => tools.started.length === 2, 5_000)).toBe(true);
    tools.release('after');
    expect(await after).toEqual({ ok: true, result: { done: 'after' } });
    expect(tools.started).toEqual(['running', 'after']);
    expect(await running).toEqual({ ok: true, result: { done: 'running' } });
  });

  test('a wait is reported once as progress; another user runs at once meanwhile', async () => {
    const tools = blockingTools();
    const callSlots = new UserCallSlots(1);
    const progress: ToolProgressEvent[] = [];
    const run = (userId: string, value: string, onProgress?: (event: ToolProgressEvent) => void) =>
      executeTool('block', { value }, contextOf(userId, onProgress ? { onProgress } : {}), undefined, {
        registry: tools.registry,
        callSlots,
      });
    const held = run('u1', 'held');
    expect(await waitUntil(() => tools.started.length === 1, 5_000)).toBe(true);
    const waiting = run('u1', 'waiting', (event) => progress.push(event));
    expect(await waitUntil(() => callSlots.waiting('u1') === 1, 5_000)).toBe(true);
    expect(progress).toEqual([
      {
        type: 'waiting_for_call_slot',
        message:
          "Waiting for a free slot: 1 of this user's tool calls are running, the most one user may run at once (MANGO_USER_MAX_TOOL_CALLS=1); this call starts when one ends.",
        running: 1,
        ahead: 0,
        limit: 1,
      },
    ]);

    const other: Promise<ToolExecutionResult> = run('u2', 'other');
    expect(await waitUntil(() => tools.started.includes('other'), 5_000)).toBe(true);
    tools.release('other');
    expect(await other).toEqual({ ok: true, result: { done: 'other' } });
    expect({ u1: callSlots.waiting('u1'), started: tools.started }).toEqual({
      u1: 1,
      started: ['held', 'other'],
    });

    tools.release('held');
    expect(await waitUntil(() => tools.started.length === 3, 5_000)).toBe(true);
    tools.release('waiting');
    expect(await waiting).toEqual({ ok: true, result: { done: 'waiting' } });
    expect(await held).toEqual({ ok: true, result: { done: 'held' } });
    expect(progress).toHaveLength(1);
  });
});
