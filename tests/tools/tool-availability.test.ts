import { describe, expect, test } from 'bun:test';
import { ToolCancelledError, ToolError, ToolTimeoutError } from '../../src/tools/errors.ts';
import { ABORT_GRACE_MILLISECONDS, executeTool } from '../../src/tools/execution.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { getToolDefinitionsForTools } from '../../src/tools/tool-settings-resolver.ts';
import type { ToolContext } from '../../src/tools/types.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import { manualTimers } from '../helpers/manual-timers.ts';
import { makeReachableSet } from '../helpers/tool-context.ts';
import { nextTurn } from '../helpers/wait-until.ts';

describe('RegisteredTool.isAvailable', () => {
  test('an unavailable tool is not offered, whatever its settings; tools without the hook are', () => {
    let available = false;
    const tools = [
      makeTool({ name: 'plain' }),
      makeTool({ name: 'conditional', isAvailable: () => available }),
    ];
    const names = () =>
      getToolDefinitionsForTools(tools, { conditional: { enabled: true } }).map(
        (definition) => definition.name,
      );
    expect(names()).toEqual(['plain']);
    available = true;
    expect(names()).toEqual(['plain', 'conditional']);
  });

  test('a disabled available tool stays hidden', () => {
    const tools = [makeTool({ name: 'conditional', isAvailable: () => true })];
    expect(getToolDefinitionsForTools(tools, { conditional: { enabled: false } })).toEqual([]);
  });
});

/** A tool that answers its abort with a partial result (or never, or by throwing). */
function partialTool(name: string, onAbort: 'resolve' | 'never' | 'throw', flag = true) {
  return makeTool({
    name,
    reportsPartialResultOnAbort: flag,
    execute: (_args: unknown, context: ToolContext) =>
      new Promise((resolve, reject) => {
        context.signal.addEventListener('abort', () => {
          if (onAbort === 'resolve')
            resolve({ partial: true, reason: (context.signal.reason as Error).message });
          if (onAbort === 'throw') reject(new Error('gave up'));
        });
      }),
  });
}

describe('RegisteredTool.reportsPartialResultOnAbort', () => {
  test('the partial result the tool returns after its budget fires is the outcome', async () => {
    const registry = new ToolRegistry();
    registry.register(partialTool('partial', 'resolve'));
    const { timers, pending } = manualTimers();
    const outcome = executeTool('partial', {}, { userId: 'u', reachable: makeReachableSet() }, undefined, {
      registry,
      timers,
    });
    pending[0]?.callback();
    expect(await outcome).toEqual({
      ok: true,
      result: { partial: true, reason: expect.stringContaining('ran out of its 30-second budget') },
    });
    expect(pending[1]?.milliseconds).toBe(ABORT_GRACE_MILLISECONDS);
    expect(pending.every((entry) => entry.cleared)).toBe(true);
  });

  test('a tool that never answers still ends with the timeout once the grace window passes', async () => {
    const registry = new ToolRegistry();
    registry.register(partialTool('silent', 'never'));
    const { timers, pending } = manualTimers();
    const outcome = executeTool('silent', {}, { userId: 'u', reachable: makeReachableSet() }, undefined, {
      registry,
      timers,
    });
    pending[0]?.callback();
    await nextTurn();
    pending[1]?.callback();
    expect(await outcome).toMatchObject({ ok: false, error: { classification: 'timeout' } });
  });

  test('a tool that throws after the abort yields the abort failure (cancel stays cancel)', async () => {
    const registry = new ToolRegistry();
    registry.register(partialTool('thrower', 'throw'));
    const controller = new AbortController();
    const { timers } = manualTimers();
    const outcome = executeTool(
      'thrower',
      {},
      { userId: 'u', reachable: makeReachableSet(), signal: controller.signal },
      undefined,
      {
        registry,
        timers,
      },
    );
    controller.abort();
    expect(await outcome).toMatchObject({ ok: false, error: { classification: 'cancelled' } });
  });

  test("an error of the abort's own classification thrown in the grace window is the outcome (its message is more specific)", async () => {
    const registry = new ToolRegistry();
    registry.register(
      makeTool({
        name: 'specific',
        reportsPartialResultOnAbort: true,
        execute: (_args: unknown, context: ToolContext) =>
          new Promise((_resolve, reject) => {
            context.signal.addEventListener('abort', () =>
              reject(
                ToolError.isInstance(context.signal.reason) &&
                  context.signal.reason.classification === 'timeout'
                  ? new ToolTimeoutError('Timed out; output so far: 42 rows.')
                  : new ToolCancelledError('Cancelled after 42 rows.'),
              ),
            );
          }),
      }),
    );
    const timed = manualTimers();
    const timedOut = executeTool('specific', {}, { userId: 'u', reachable: makeReachableSet() }, undefined, {
      registry,
      timers: timed.timers,
    });
    timed.pending[0]?.callback();
    expect(await timedOut).toEqual({
      ok: false,
      error: { classification: 'timeout', message: 'Timed out; output so far: 42 rows.' },
    });
    const controller = new AbortController();
    const cancelled = executeTool(
      'specific',
      {},
      { userId: 'u', reachable: makeReachableSet(), signal: controller.signal },
      undefined,
      {
        registry,
        timers: manualTimers().timers,
      },
    );
    controller.abort();
    expect(await cancelled).toEqual({
      ok: false,
      error: { classification: 'cancelled', message: 'Cancelled after 42 rows.' },
    });
  });

  test('an error of another classification thrown after the abort yields the abort failure', async () => {
    const registry = new ToolRegistry();
    registry.register(
      makeTool({
        name: 'mismatched',
        reportsPartialResultOnAbort: true,
        execute: (_args: unknown, context: ToolContext) =>
          new Promise((_resolve, reject) => {
            context.signal.addEventListener('abort', () => reject(new ToolTimeoutError('not a cancel')));
          }),
      }),
    );
    const controller = new AbortController();
    const outcome = executeTool(
      'mismatched',
      {},
      { userId: 'u', reachable: makeReachableSet(), signal: controller.signal },
      undefined,
      {
        registry,
        timers: manualTimers().timers,
      },
    );
    controller.abort();
    expect(await outcome).toMatchObject({ ok: false, error: { classification: 'cancelled' } });
  });

  test('without the flag the abort failure wins at once (unchanged behaviour)', async () => {
    const registry = new ToolRegistry();
    registry.register(partialTool('plain', 'resolve', false));
    const { timers, pending } = manualTimers();
    const outcome = executeTool('plain', {}, { userId: 'u', reachable: makeReachableSet() }, undefined, {
      registry,
      timers,
    });
    pending[0]?.callback();
    expect(await outcome).toMatchObject({ ok: false, error: { classification: 'timeout' } });
    expect(pending).toHaveLength(1);
  });
});
