import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ShellSandbox } from '../../../src/sandbox/shell-sandbox.ts';
import { createUnsandboxedShell } from '../../../src/sandbox/unsandboxed-shell.ts';
import { buildShellTool } from '../../../src/tools/builtin/build-shell-tool.ts';
import { ToolCancelledError } from '../../../src/tools/errors.ts';
import { executeTool } from '../../../src/tools/execution.ts';
import { defaultToolRegistry, ToolRegistry } from '../../../src/tools/registry.ts';
import type { ShellCommandResult } from '../../../src/tools/shell/run-shell-command.ts';
import {
  getToolDefinitionsForTools,
  normalizeToolParameters,
} from '../../../src/tools/tool-settings-resolver.ts';
import {
  makeReachableSet,
  makeTempDirectory,
  pathList,
  type ReachableFixture,
} from '../../helpers/tool-context.ts';
import { eventually, liveProcessGroupMembers, readPidFile } from '../shell/process-table.ts';
import '../../../src/tools/builtin/register-builtin-tools.ts';
import { toolSettingsMetadataOf } from '../../../src/tools/tool-settings-metadata.ts';

const temporary = makeTempDirectory('mango-shell-tool-');
const workspace = join(temporary.path, 'workspace');
const outside = join(temporary.path, 'outside');
beforeAll(() => {
  mkdirSync(join(workspace, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(workspace, 'file.txt'), 'x');
  symlinkSync(outside, join(workspace, 'escape'));
});
afterAll(() => temporary.remove());

// These tests are about the tool's mechanics (cwd, budgets, process groups through /proc), so they run
// unsandboxed; tests/sandbox/ runs the same tool in the real sandbox.
const unsandboxed = createUnsandboxedShell({ log: () => {} });
const registry = new ToolRegistry();
registry.register(buildShellTool('bash', { sandbox: () => unsandboxed }));

function call(
  args: unknown,
  parameters: Record<string, unknown> = {},
  binding: ReachableFixture & { signal?: AbortSignal } = {},
) {
  const { signal, ...fixture } = binding;
  return executeTool(
    'bash',
    args,
    {
      userId: 'u',
      reachable: makeReachableSet({ workingDirectory: workspace, ...fixture }),
      ...(signal === undefined ? {} : { signal }),
    },
    { enabled: true, parameters },
    { registry },
  );
}

async function resultOf(
  args: unknown,
  parameters: Record<string, unknown> = {},
  binding: ReachableFixture = {},
): Promise<ShellCommandResult> {
  const outcome = await call(args, parameters, binding);
  if (!outcome.ok) throw new Error(`expected ok, got ${JSON.stringify(outcome.error)}`);
  return outcome.result as ShellCommandResult;
}

describe('registration and settings', () => {
  test('bash and zsh are registered exactly when the interpreter exists; powershell only on Windows', () => {
    expect(defaultToolRegistry.get('bash') !== undefined).toBe(Bun.which('bash') !== null);
    expect(defaultToolRegistry.get('zsh') !== undefined).toBe(Bun.which('zsh') !== null);
    if (process.platform !== 'win32') expect(defaultToolRegistry.get('powershell')).toBeUndefined();
  });

  test('off by default: never offered, and a call is tool_disabled', async () => {
    const tool = buildShellTool('bash');
    expect(tool.settings.enabledByDefault).toBe(false);
    expect(getToolDefinitionsForTools([tool])).toEqual([]);
    const outcome = await executeTool(
      'bash',
      { command: 'true' },
      { userId: 'u', reachable: makeReachableSet() },
      undefined,
      { registry },
    );
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'tool_disabled' } });
  });

  test('settings: defaults and bounds', () => {
    const tool = buildShellTool('bash');
    expect(tool.settings.defaultParameters).toEqual({
      timeoutSeconds: 30,
      maxOutputBytes: 102_400,
      deniedEnvVars: [],
      allowedPaths: [],
      deniedPaths: [],
      autoApprovedCommands: [],
      autoApprovedExactCommands: [],
    });
    const bounds = Object.fromEntries(
      toolSettingsMetadataOf(tool).parameterDescriptors.map((item) => [
        item.name,
        [item.type, item.min, item.max],
      ]),
    );
    expect(bounds).toEqual({
      timeoutSeconds: ['integer', 5, 600],
      maxOutputBytes: ['integer', 1024, 1_048_576],
      deniedEnvVars: ['string_list', undefined, undefined],
      allowedPaths: ['path_list', undefined, undefined],
      deniedPaths: ['path_list', undefined, undefined],
      autoApprovedCommands: ['string_list', undefined, undefined],
      autoApprovedExactCommands: ['string_list', undefined, undefined],
      approval: ['select', undefined, undefined],
      approvalTimeoutSeconds: ['integer', 10, 3600],
    });
    // PowerShell's grammar is not parsed: it has no command rules.
    expect(Object.keys(buildShellTool('powershell').settings.defaultParameters)).not.toContain(
      'autoApprovedCommands',
    );
    expect(() => normalizeToolParameters(tool, { timeoutSeconds: 4 })).toThrow('at least 5');
    expect(() => normalizeToolParameters(tool, { maxOutputBytes: 2_000_000 })).toThrow('at most 1048576');
  });

  test('the definition states the configured limits and interpreter', () => {
    const tool = buildShellTool('bash');
    const definition = tool.buildDefinition?.({
      enabled: true,
      parameters: { timeoutSeconds: 90, maxOutputBytes: 4096 },
    });
    expect(definition?.description).toContain('bash -c');
    expect(definition?.description).toContain('killed after 90 seconds');
    expect(definition?.description).toContain('first 4096 bytes');
    expect(definition?.parameters.required).toEqual(['command']);
    expect(definition?.parameters.additionalProperties).toBe(false);
    expect(buildShellTool('powershell').definition.description).toContain(
      'powershell -NoProfile -NonInteractive -Command',
    );
  });
});

describe('results', () => {
  test('a non-zero exit is a result, with stdout and stderr', async () => {
    expect(await resultOf({ command: 'echo out; echo err >&2; exit 4' })).toMatchObject({
      shell: 'bash',
      cwd: workspace,
      exitCode: 4,
      signal: null,
      stdout: 'out\n',
      stderr: 'err\n',
      truncated: false,
      termination: { kind: 'exited' },
    });
  });

  test('maxOutputBytes caps each stream', async () => {
    const result = await resultOf(
      { command: 'head -c 5000 /dev/zero | tr "\\0" o' },
      { maxOutputBytes: 1024 },
    );
    expect(result.stdout).toBe('o'.repeat(1024));
    expect(result.truncated).toBe(true);
  });

  const invalid: [string, unknown, string][] = [
    ['missing command', {}, 'Argument "command" is required'],
    ['empty command', { command: '' }, 'at least 1 character'],
    ['command of the wrong type', { command: ['ls'] }, 'must be a string'],
    ['NUL in command', { command: 'echo a\0b' }, 'NUL byte'],
    ['cwd of the wrong type', { command: 'true', cwd: 42 }, 'Argument "cwd" must be a string'],
    ['undeclared argument', { command: 'true', timeout: 5 }, 'has no argument "timeout"'],
  ];
  test.each(invalid)('%s is validation_failed', async (_label, args, message) => {
    const outcome = await call(args);
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'validation_failed' } });
    if (!outcome.ok) expect(outcome.error.message).toContain(message);
  });
});

describe('cwd', () => {
  const resolves: [string, Record<string, unknown>, () => string][] = [
    ['absent: the chat working directory', {}, () => workspace],
    ['relative to the chat working directory', { cwd: 'sub' }, () => join(workspace, 'sub')],
    ['absolute', { cwd: outside }, () => outside],
    ['~', { cwd: '~' }, () => realpathSync(homedir())],
  ];
  test.each(resolves)('%s', async (_label, args, expected) => {
    const result = await resultOf({ command: 'pwd -P', ...args });
    expect(result.stdout).toBe(`${expected()}\n`);
  });

  test('absent: the working directory of the reachable set, never the server process directory', async () => {
    const result = await resultOf({ command: 'pwd -P' }, {}, { workingDirectory: join(workspace, 'sub') });
    expect(result.stdout).toBe(`${join(workspace, 'sub')}\n`);
  });

  const refusals: [string, Record<string, unknown>, Record<string, unknown>, boolean, string][] = [
    ['a missing directory', { cwd: 'nope' }, {}, false, 'not_found'],
    ['a file', { cwd: 'file.txt' }, {}, false, 'validation_failed'],
    ['outside the working directory of a restricted chat', { cwd: outside }, {}, true, 'permission_denied'],
    ['a symlink leaving a restricted chat', { cwd: 'escape' }, {}, true, 'permission_denied'],
    [
      'the default directory under deniedPaths',
      {},
      { deniedPaths: pathList(workspace) },
      false,
      'permission_denied',
    ],
    [
      'outside allowedPaths',
      { cwd: outside },
      { allowedPaths: pathList(workspace) },
      false,
      'permission_denied',
    ],
  ];
  test.each(refusals)('refuses %s', async (_label, args, parameters, restricted, classification) => {
    const outcome = await call({ command: 'touch ran', ...args }, parameters, { confined: restricted });
    expect(outcome).toMatchObject({ ok: false, error: { classification } });
  });

  test('a restricted chat may still run inside its working directory', async () => {
    const result = await resultOf({ command: 'pwd -P', cwd: 'sub' }, {}, { confined: true });
    expect(result.stdout).toBe(`${join(workspace, 'sub')}\n`);
  });
});

describe('environment', () => {
  test("by allowlist: the server's variables are absent unless listed; pagers and prompts are off", async () => {
    process.env.MANGO_TEST_API_TOKEN = 'secret-token-value-1';
    process.env.MANGO_TEST_MIRROR = 'https://user:secret/password-2@example.com/repo';
    process.env.MANGO_TEST_PLAIN = 'plain-value';
    try {
      const { stdout } = await resultOf({ command: 'env' });
      expect(stdout).not.toContain('secret-token-value-1');
      expect(stdout).not.toContain('secret/password-2');
      expect(stdout).not.toContain('MANGO_TEST_PLAIN');
      expect(stdout).toContain('PAGER=cat\n');
      expect(stdout).toContain('GIT_PAGER=cat\n');
      expect(stdout).toContain('GIT_TERMINAL_PROMPT=0\n');

      const passing = createUnsandboxedShell({ passEnv: ['MANGO_TEST_PLAIN'], log: () => {} });
      const passingRegistry = new ToolRegistry();
      passingRegistry.register(buildShellTool('bash', { sandbox: () => passing }));
      const run = (parameters: Record<string, unknown>) =>
        executeTool(
          'bash',
          { command: 'env' },
          { userId: 'u', reachable: makeReachableSet({ workingDirectory: workspace }) },
          { enabled: true, parameters },
          { registry: passingRegistry },
        );
      const passed = await run({});
      expect(passed).toMatchObject({ ok: true });
      if (passed.ok)
        expect((passed.result as ShellCommandResult).stdout).toContain('MANGO_TEST_PLAIN=plain-value\n');
      const denied = await run({ deniedEnvVars: ['MANGO_TEST_*'] });
      if (!denied.ok) throw new Error(denied.error.message);
      expect((denied.result as ShellCommandResult).stdout).not.toContain('MANGO_TEST_PLAIN');
    } finally {
      delete process.env.MANGO_TEST_API_TOKEN;
      delete process.env.MANGO_TEST_MIRROR;
      delete process.env.MANGO_TEST_PLAIN;
    }
  });
});

describe('budgets through executeTool', () => {
  test('timeoutSeconds 5 on `sleep 60`: a timeout error naming the budget and quoting the output so far, in under 6 s, no process left', async () => {
    const pidFile = join(temporary.path, 'tool-timeout.pid');
    const startedAt = performance.now();
    const outcome = await call(
      { command: `sleep 60 & echo $$ > ${pidFile}; echo started; echo warming >&2; sleep 60` },
      { timeoutSeconds: 5 },
    );
    expect(performance.now() - startedAt).toBeLessThan(6000);
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'timeout' } });
    // Through executeTool (the chat path) the model gets the shell's own message, output included.
    if (!outcome.ok) {
      expect(outcome.error.message).toContain('5-second budget (timeoutSeconds)');
      expect(outcome.error.message).toContain('stdout before it was killed:\nstarted');
      expect(outcome.error.message).toContain('stderr before it was killed:\nwarming');
    }
    const group = await readPidFile(pidFile);
    expect(await eventually(() => liveProcessGroupMembers(group).length === 0)).toBe(true);
  }, 20_000);

  test('a user cancel is cancelled, not timeout, and kills the group', async () => {
    const pidFile = join(temporary.path, 'tool-cancel.pid');
    const controller = new AbortController();
    const outcome = call(
      { command: `sleep 60 & echo $$ > ${pidFile}; sleep 60` },
      {},
      { signal: controller.signal },
    );
    const group = await readPidFile(pidFile);
    controller.abort(new ToolCancelledError('user pressed stop'));
    expect(await outcome).toMatchObject({ ok: false, error: { classification: 'cancelled' } });
    expect(await eventually(() => liveProcessGroupMembers(group).length === 0)).toBe(true);
  });
});

describe('how a stopped command is reported by the tool itself', () => {
  function toolReturning(termination: ShellCommandResult['termination']) {
    const sandbox: ShellSandbox = {
      status: () => ({ available: true, mode: 'off', summary: 'fixed result' }),
      run: async (options) => ({
        shell: 'bash',
        command: options.command,
        cwd: options.cwd,
        exitCode: null,
        signal: 'SIGKILL',
        stdout: 'partial output',
        stderr: '',
        truncated: false,
        termination,
        durationMs: options.timeoutMs,
      }),
    };
    return buildShellTool('bash', { sandbox: () => sandbox });
  }
  const context = (parameters: Record<string, unknown>) => ({
    userId: 'u',
    chatId: undefined,
    reachable: makeReachableSet({ workingDirectory: workspace }),
    settings: { enabled: true, parameters },
    signal: new AbortController().signal,
    ledger: { get: async () => undefined, put: async () => {}, delete: async () => {} },
    onProgress: () => {},
    now: () => 0,
    dataDirectory: temporary.path,
  });

  test('timed_out: a timeout error naming the budget and quoting the output so far', async () => {
    const run = toolReturning({ kind: 'timed_out', signal: 'SIGKILL' }).execute(
      { command: 'slow' },
      context({ timeoutSeconds: 7 }),
    );
    await expect(run).rejects.toMatchObject({ classification: 'timeout' });
    await expect(run).rejects.toThrow(/7-second budget \(timeoutSeconds\)[\s\S]*partial output/);
  });

  test('aborted: cancelled', async () => {
    const run = toolReturning({ kind: 'aborted', signal: 'SIGKILL' }).execute({ command: 'x' }, context({}));
    await expect(run).rejects.toMatchObject({ classification: 'cancelled' });
  });

  test('signalled: a normal result', async () => {
    const result = await toolReturning({ kind: 'signalled', signal: 'SIGKILL' }).execute(
      { command: 'x' },
      context({}),
    );
    expect(result).toMatchObject({ termination: { kind: 'signalled' }, cwd: workspace });
  });

  test('memory: a normal result whose notice names the share that ran out', async () => {
    const result = await toolReturning({
      kind: 'memory',
      limitBytes: 2 * 1024 ** 3,
      signal: 'SIGKILL',
    }).execute({ command: 'x' }, context({}));
    expect(result).toMatchObject({
      termination: { kind: 'memory', limitBytes: 2 * 1024 ** 3, signal: 'SIGKILL' },
      notice:
        "The kernel killed a process of this command: this user's memory share ran out (2 GiB for all their " +
        'commands and MCP servers together, MANGO_SANDBOX_USER_MEMORY). Use less memory at once (smaller ' +
        'input, fewer parallel jobs, less in /tmp), or ask the operator to raise the share.',
    });
  });
});
