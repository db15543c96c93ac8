import { describe, expect, test } from 'bun:test';
import { ToolArgumentError, ToolNotFoundError } from '../../src/tools/errors.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { ToolContext } from '../../src/tools/types.ts';
import { makeSettingsTool, makeTool, TEST_TOOL_UNIVERSAL_DEFAULTS } from '../helpers/fake-tools.ts';
import { manualTimers } from '../helpers/manual-timers.ts';
import { makeReachableSet } from '../helpers/tool-context.ts';

/** A tool that waits for its signal and records what it saw. */
function hangingTool(name: string, seen: { reason?: unknown }) {
  return makeTool({
    name,
    execute: (_args: unknown, context: ToolContext) =>
      new Promise((_resolve, reject) => {
        context.signal.addEventListener('abort', () => {
          seen.reason = context.signal.reason;
          reject(new Error('stopped'));
        });
      }),
  });
}

const context = { userId: 'u1', reachable: makeReachableSet() };

describe('executeTool', () => {
  test('runs a tool and returns its result', async () => {
    const registry = new ToolRegistry();
    registry.register(makeTool({ name: 'echo' }));
    expect(await executeTool('echo', { value: 'hi' }, context, undefined, { registry })).toEqual({
      ok: true,
      result: { echoed: { value: 'hi' } },
    });
  });

  test('unknown tool', async () => {
    const registry = new ToolRegistry();
    registry.register(makeTool({ name: 'echo' }));
    expect(await executeTool('nope', {}, context, undefined, { registry })).toEqual({
      ok: false,
      error: { classification: 'unknown_tool', message: 'No tool named "nope". Available tools: echo.' },
    });
  });

  test('disabled by default, enabled by saved settings', async () => {
    const registry = new ToolRegistry();
    registry.register(makeSettingsTool());
    const disabled = await executeTool('tunable', {}, context, undefined, { registry });
    expect(disabled).toEqual({
      ok: false,
      error: {
        classification: 'tool_disabled',
        message:
          'Tool "tunable" is disabled in this user\'s tool settings; it cannot be called until the user enables it.',
      },
    });
    expect((await executeTool('tunable', {}, context, { enabled: true }, { registry })).ok).toBe(true);
  });

  test('an enabled tool the user disabled is refused', async () => {
    const registry = new ToolRegistry();
    registry.register(makeTool({ name: 'echo' }));
    const result = await executeTool('echo', {}, context, { enabled: false }, { registry });
    expect(result.ok ? undefined : result.error.classification).toBe('tool_disabled');
  });

  test('corrupted saved settings fall back to defaults and are reported', async () => {
    const registry = new ToolRegistry();
    let seenSettings: unknown;
    registry.register(
      makeTool({
        ...makeSettingsTool(),
        name: 'tunable',
        execute: async (_args: unknown, toolContext: ToolContext) => {
          seenSettings = toolContext.settings;
          return 'ran';
        },
      }),
    );
    const reported: string[] = [];
    const result = await executeTool(
      'tunable',
      {},
      context,
      { enabled: true, parameters: { timeoutSeconds: 'forever', quality: 'ultra' } },
      { registry, onInvalidSettings: (error) => reported.push(error.message) },
    );
    expect(result).toEqual({ ok: true, result: 'ran' });
    expect(seenSettings).toEqual({
      enabled: true,
      parameters: { ...makeSettingsTool().settings.defaultParameters, ...TEST_TOOL_UNIVERSAL_DEFAULTS },
    });
    expect(reported).toHaveLength(2);
  });

  test('arguments that are not an object, or carry undeclared keys, are validation failures', async () => {
    const registry = new ToolRegistry();
    registry.register(makeTool({ name: 'echo' }));
    expect(await executeTool('echo', [1], context, undefined, { registry })).toEqual({
      ok: false,
      error: {
        classification: 'validation_failed',
        message: 'Tool arguments must be a JSON object, got an array.',
      },
    });
    expect(await executeTool('echo', { valeu: 'x' }, context, undefined, { registry })).toEqual({
      ok: false,
      error: {
        classification: 'validation_failed',
        message: 'Tool "echo" has no argument "valeu". Its arguments are: value.',
      },
    });
    expect((await executeTool('echo', { extra: null }, context, undefined, { registry })).ok).toBe(true);
  });

  test('thrown errors become classified envelopes', async () => {
    const registry = new ToolRegistry();
    registry.register(
      makeTool({
        name: 'bad-arg',
        execute: async () => {
          throw new ToolArgumentError('Argument "x" is required (a string).');
        },
      }),
    );
    registry.register(
      makeTool({
        name: 'missing',
        execute: async () => {
          throw new ToolNotFoundError('No such file: /nope');
        },
      }),
    );
    registry.register(
      makeTool({
        name: 'enoent',
        execute: async () => {
          throw Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
        },
      }),
    );
    registry.register(
      makeTool({
        name: 'boom',
        execute: async () => {
          throw new TypeError('boom');
        },
      }),
    );
    const classify = async (name: string) => {
      const result = await executeTool(name, {}, context, undefined, { registry });
      return result.ok ? 'ok' : `${result.error.classification}: ${result.error.message}`;
    };
    expect(await classify('bad-arg')).toBe('validation_failed: Argument "x" is required (a string).');
    expect(await classify('missing')).toBe('not_found: No such file: /nope');
    expect(await classify('enoent')).toBe('not_found: ENOENT: no such file');
    expect(await classify('boom')).toBe('execution_error: boom');
  });

  test('the budget is timeoutSeconds when the tool has that setting, 30 s otherwise', async () => {
    const registry = new ToolRegistry();
    registry.register(makeTool({ name: 'quick' }));
    registry.register(makeSettingsTool());
    const { timers, pending } = manualTimers();
    await executeTool('quick', {}, context, undefined, { registry, timers });
    await executeTool(
      'tunable',
      {},
      context,
      { enabled: true, parameters: { timeoutSeconds: 90 } },
      { registry, timers },
    );
    expect(pending.map((entry) => entry.milliseconds)).toEqual([30_000, 90_000]);
    expect(pending.every((entry) => entry.cleared)).toBe(true);
  });

  test('budget exhaustion aborts the signal and reports timeout', async () => {
    const registry = new ToolRegistry();
    const seen: { reason?: unknown } = {};
    registry.register(hangingTool('hang', seen));
    const { timers, fireAll } = manualTimers();
    const pending = executeTool('hang', {}, context, undefined, { registry, timers });
    await Promise.resolve();
    fireAll();
    expect(await pending).toEqual({
      ok: false,
      error: {
        classification: 'timeout',
        message:
          'Tool "hang" ran out of its 30-second budget (timeoutSeconds) and was stopped. Try a smaller or faster request, or ask the user to raise the timeout in the tool settings.',
      },
    });
    expect((seen.reason as Error).name).toBe('ToolTimeoutError');
  });

  test('a tool that ignores its signal still ends at the budget', async () => {
    const registry = new ToolRegistry();
    registry.register(makeTool({ name: 'deaf', execute: () => new Promise(() => {}) }));
    const { timers, fireAll } = manualTimers();
    const pending = executeTool('deaf', {}, context, undefined, { registry, timers });
    await Promise.resolve();
    fireAll();
    const result = await pending;
    expect(result.ok ? undefined : result.error.classification).toBe('timeout');
  });

  test('a parent abort is cancelled, never timeout, and the first cause wins', async () => {
    const registry = new ToolRegistry();
    const seen: { reason?: unknown } = {};
    registry.register(hangingTool('hang', seen));
    const { timers, fireAll } = manualTimers();
    const parent = new AbortController();
    const pending = executeTool('hang', {}, { ...context, signal: parent.signal }, undefined, {
      registry,
      timers,
    });
    await Promise.resolve();
    parent.abort();
    fireAll();
    expect(await pending).toEqual({
      ok: false,
      error: { classification: 'cancelled', message: 'Tool "hang" was cancelled before it finished.' },
    });
    expect((seen.reason as Error).name).toBe('ToolCancelledError');
  });

  test('an already-aborted parent never starts the tool', async () => {
    const registry = new ToolRegistry();
    let started = false;
    registry.register(
      makeTool({
        name: 'never',
        execute: async () => {
          started = true;
        },
      }),
    );
    const parent = new AbortController();
    parent.abort();
    const result = await executeTool('never', {}, { ...context, signal: parent.signal }, undefined, {
      registry,
    });
    expect(result).toEqual({
      ok: false,
      error: { classification: 'cancelled', message: 'Tool "never" was cancelled before it started.' },
    });
    expect(started).toBe(false);
  });

  test('the context is resolved with defaults for everything but userId', async () => {
    const registry = new ToolRegistry();
    let seen: ToolContext | undefined;
    registry.register(
      makeTool({
        name: 'ctx',
        execute: async (_args: unknown, toolContext: ToolContext) => {
          seen = toolContext;
          return null;
        },
      }),
    );
    await executeTool(
      'ctx',
      {},
      { userId: 'u9', reachable: makeReachableSet(), chatId: 'c1', now: () => 1234 },
      undefined,
      { registry },
    );
    expect(seen?.userId).toBe('u9');
    expect(seen?.chatId).toBe('c1');
    expect(seen?.reachable).toEqual(makeReachableSet());
    expect(seen?.now()).toBe(1234);
    expect(seen?.signal.aborted).toBe(false);
    await seen?.ledger.put({
      path: '/x',
      sha256: 'a',
      size: 1,
      mtimeMs: 1,
      coveredThrough: 1,
      complete: true,
    });
    let second: ToolContext | undefined;
    registry.register(
      makeTool({
        name: 'ctx2',
        execute: async (_args: unknown, toolContext: ToolContext) => {
          second = toolContext;
          return null;
        },
      }),
    );
    await executeTool('ctx2', {}, { userId: 'u9', reachable: makeReachableSet(), chatId: 'c1' }, undefined, {
      registry,
    });
    expect((await second?.ledger.get('/x'))?.sha256).toBe('a');
  });
});
