import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ToolCancelledError, ToolTimeoutError } from '../../../src/tools/errors.ts';
import type { ToolTimers } from '../../../src/tools/execution.ts';
import { type RunShellCommandOptions, runShellCommand } from '../../../src/tools/shell/run-shell-command.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';
import {
  eventually,
  isProcessGone,
  liveProcessGroupMembers,
  readPidFile,
  readProcessStatus,
} from './process-table.ts';

const temporary = makeTempDirectory('mango-shell-');
afterAll(() => temporary.remove());

function options(command: string, overrides: Partial<RunShellCommandOptions> = {}): RunShellCommandOptions {
  return {
    shell: 'bash',
    command,
    cwd: temporary.path,
    timeoutMs: 30_000,
    maxOutputBytes: 1024,
    ...overrides,
  };
}

/** Timers that only fire when the test says so. */
function manualTimers(): ToolTimers & { fire(): void } {
  let pending: (() => void) | undefined;
  return {
    setTimeout: (callback) => {
      pending = callback;
      return 1;
    },
    clearTimeout: () => {
      pending = undefined;
    },
    fire: () => pending?.(),
  };
}

describe('runShellCommand: exits, output and cwd', () => {
  const cases: [string, number, string, string][] = [
    // command, exit code, stdout, stderr
    ['echo hello', 0, 'hello\n', ''],
    ['echo out; echo err >&2; exit 3', 3, 'out\n', 'err\n'],
    ['exit 255', 255, '', ''],
    ['printf "no newline"', 0, 'no newline', ''],
  ];
  test.each(cases)('%p exits %p', async (command, exitCode, stdout, stderr) => {
    const result = await runShellCommand(options(command));
    expect(result).toMatchObject({
      shell: 'bash',
      command,
      cwd: temporary.path,
      exitCode,
      signal: null,
      stdout,
      stderr,
      truncated: false,
      termination: { kind: 'exited' },
    });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  test("a missing command is exit 127 with the shell's message on stderr", async () => {
    const result = await runShellCommand(options('nonexistent-command-xyz'));
    expect(result.exitCode).toBe(127);
    expect(result.stderr).toContain('nonexistent-command-xyz: command not found');
  });

  test('runs in the given directory with stdin closed', async () => {
    const result = await runShellCommand(options('pwd; cat; echo "read:$?"'));
    expect(result.stdout).toBe(`${temporary.path}\nread:0\n`);
  });

  test('a shell killed by a signal it did not get from us is "signalled"', async () => {
    const result = await runShellCommand(options('echo before; kill -TERM $$'));
    expect(result).toMatchObject({
      exitCode: null,
      signal: 'SIGTERM',
      stdout: 'before\n',
      termination: { kind: 'signalled', signal: 'SIGTERM' },
    });
  });

  test('the shell leads its own process group and session (verified in /proc)', async () => {
    const result = await runShellCommand(options('cat /proc/$$/stat; echo; echo $$'));
    const lines = result.stdout.trim().split('\n');
    const shellPid = Number(lines[lines.length - 1]);
    const stat = lines[0] as string;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    expect(Number(fields[2])).toBe(shellPid); // process group id
    expect(Number(fields[3])).toBe(shellPid); // session id
    expect(Number(fields[2])).not.toBe(readProcessStatus(process.pid)?.processGroupId);
  });

  test('a missing working directory is not_found, not a crash', async () => {
    const run = runShellCommand(options('true', { cwd: join(temporary.path, 'missing') }));
    await expect(run).rejects.toMatchObject({ classification: 'not_found' });
  });
});

describe('runShellCommand: budgets stop the work', () => {
  test('a 5 s timeout on `sleep 60` returns in under 6 s and leaves no process of the group alive', async () => {
    const pidFile = join(temporary.path, 'timeout.pid');
    const startedAt = performance.now();
    const result = await runShellCommand(
      options(`sleep 60 & echo $$ > ${pidFile}; echo started; sleep 60`, { timeoutMs: 5000 }),
    );
    const elapsed = performance.now() - startedAt;
    expect(elapsed).toBeLessThan(6000);
    expect(elapsed).toBeGreaterThanOrEqual(4900);
    expect(result).toMatchObject({
      exitCode: null,
      signal: 'SIGKILL',
      stdout: 'started\n',
      termination: { kind: 'timed_out', signal: 'SIGKILL' },
    });
    const group = await readPidFile(pidFile);
    expect(await eventually(() => liveProcessGroupMembers(group).length === 0)).toBe(true);
  }, 20_000);

  test('a parent abort kills the group and is reported as aborted', async () => {
    const pidFile = join(temporary.path, 'abort.pid');
    const controller = new AbortController();
    const run = runShellCommand(
      options(`sleep 60 & echo $$ > ${pidFile}; sleep 60`, { signal: controller.signal }),
    );
    const group = await readPidFile(pidFile);
    expect(liveProcessGroupMembers(group).length).toBeGreaterThan(0);
    controller.abort(new ToolCancelledError('user cancelled'));
    const result = await run;
    expect(result.termination).toEqual({ kind: 'aborted', signal: 'SIGKILL' });
    expect(await eventually(() => liveProcessGroupMembers(group).length === 0)).toBe(true);
  });

  test("executeTool's budget abort (a ToolTimeoutError reason) counts as timed_out", async () => {
    const controller = new AbortController();
    const run = runShellCommand(options('sleep 60', { signal: controller.signal }));
    controller.abort(new ToolTimeoutError('budget'));
    expect((await run).termination.kind).toBe('timed_out');
  });

  test('the first cause wins: a timeout followed by an abort stays timed_out', async () => {
    const timers = manualTimers();
    const controller = new AbortController();
    const run = runShellCommand(options('sleep 60', { timers, signal: controller.signal }));
    timers.fire();
    controller.abort(new ToolCancelledError('too late'));
    expect((await run).termination).toEqual({ kind: 'timed_out', signal: 'SIGKILL' });
  });

  test('the first cause wins: an abort followed by the timer stays aborted', async () => {
    const timers = manualTimers();
    const controller = new AbortController();
    const run = runShellCommand(options('sleep 60', { timers, signal: controller.signal }));
    controller.abort(new ToolCancelledError('user'));
    timers.fire();
    expect((await run).termination).toEqual({ kind: 'aborted', signal: 'SIGKILL' });
  });

  test('an already aborted signal starts nothing', async () => {
    const controller = new AbortController();
    controller.abort(new ToolCancelledError('before start'));
    const result = await runShellCommand(options('echo never', { signal: controller.signal }));
    expect(result).toMatchObject({ stdout: '', exitCode: null, termination: { kind: 'aborted' } });
  });
});

describe("runShellCommand: a wrapper's limit that ended the command", () => {
  /** A wrapper that runs the command directly and says a memory share of 1 MiB ended it. */
  const limited = (settled: string[]): RunShellCommandOptions['wrapper'] => ({
    start: async (argv, environment) => ({
      child: Bun.spawn([...argv], { env: environment, stdio: ['ignore', 'pipe', 'pipe'], detached: true }),
      settle: async () => {
        settled.push('settled');
      },
      limitTermination: () => {
        settled.push('read');
        return { kind: 'memory', limitBytes: 1024 ** 2 };
      },
    }),
  });

  test('replaces exited, and signalled keeping the signal, read after the wrapper settled', async () => {
    const order: string[] = [];
    const exited = await runShellCommand(options('exit 137', { wrapper: limited(order) }));
    expect(exited).toMatchObject({ exitCode: 137, termination: { kind: 'memory', limitBytes: 1024 ** 2 } });
    expect(exited.termination).toEqual({ kind: 'memory', limitBytes: 1024 ** 2 });
    expect(order).toEqual(['settled', 'read']);
    const killed = await runShellCommand(options('kill -9 $$', { wrapper: limited([]) }));
    expect(killed.termination).toEqual({ kind: 'memory', limitBytes: 1024 ** 2, signal: 'SIGKILL' });
  });

  test('a timeout that came first stays a timeout', async () => {
    const run = runShellCommand(options('sleep 60', { timeoutMs: 50, wrapper: limited([]) }));
    expect((await run).termination).toEqual({ kind: 'timed_out', signal: 'SIGKILL' });
  });
});

describe('runShellCommand: waits for the shell to exit, not for end-of-output', () => {
  test('a background child holding the pipes does not hold the call, and is killed', async () => {
    const pidFile = join(temporary.path, 'background.pid');
    const startedAt = performance.now();
    const result = await runShellCommand(options(`sleep 600 & echo $! > ${pidFile}; echo done`));
    expect(performance.now() - startedAt).toBeLessThan(1000);
    expect(result).toMatchObject({ exitCode: 0, stdout: 'done\n', termination: { kind: 'exited' } });
    const backgroundPid = await readPidFile(pidFile);
    expect(await eventually(() => isProcessGone(backgroundPid))).toBe(true);
  });

  test('a child that left the group (setsid) still cannot hold the call past the pipe grace', async () => {
    const pidFile = join(temporary.path, 'escaped.pid');
    const startedAt = performance.now();
    const result = await runShellCommand(
      options(`setsid sh -c 'echo $$ > ${pidFile}; exec sleep 600' & sleep 0.2; echo done`),
    );
    try {
      expect(performance.now() - startedAt).toBeLessThan(1500);
      expect(result).toMatchObject({ exitCode: 0, stdout: 'done\n' });
    } finally {
      const escapedPid = await readPidFile(pidFile);
      process.kill(escapedPid, 'SIGKILL');
    }
  });
});

describe('runShellCommand: byte caps', () => {
  test('2 GB of output with a 1 KB cap returns the first 1 KB, truncated, with flat memory', async () => {
    // Measured in a fresh process (see measure-output-memory.ts): the test runner's own RSS depends
    // on every test file that ran before this one.
    const probe = Bun.spawn(
      [process.execPath, join(import.meta.dir, 'measure-output-memory.ts'), temporary.path, String(2 ** 31)],
      { stdout: 'pipe', stderr: 'inherit' },
    );
    const output = await new Response(probe.stdout).text();
    expect(await probe.exited).toBe(0);
    const result = JSON.parse(output) as {
      growthBytes: number;
      truncated: boolean;
      termination: string;
      stdout: string;
      stderr: string;
    };
    expect(result.truncated).toBe(true);
    expect(result.termination).toBe('exited');
    expect(result.stdout).toBe(`start${'\0'.repeat(1024 - 5)}`);
    expect(result.stderr).toBe('tail\n');
    expect(result.growthBytes).toBeLessThan(50 * 1024 * 1024);
  }, 120_000);

  test('output exactly at the cap is not truncated', async () => {
    const result = await runShellCommand(options('head -c 1024 /dev/zero | tr "\\0" x'));
    expect(result.stdout).toBe('x'.repeat(1024));
    expect(result.truncated).toBe(false);
  });

  test('stderr is capped separately from stdout', async () => {
    const result = await runShellCommand(options('echo small; head -c 5000 /dev/zero | tr "\\0" e >&2'));
    expect(result.stdout).toBe('small\n');
    expect(result.stderr).toBe('e'.repeat(1024));
    expect(result.truncated).toBe(true);
  });

  // 1023 ASCII bytes, then a character of 2, 3 or 4 bytes straddling byte 1024.
  const boundaryCases: [string, string][] = [
    ['é (2 bytes)', 'é'],
    ['€ (3 bytes)', '€'],
    ['😀 (4 bytes)', '😀'],
  ];
  test.each(boundaryCases)('a %s split by the cap is dropped whole', async (_label, character) => {
    const result = await runShellCommand(
      options(`head -c 1023 /dev/zero | tr "\\0" a; printf '${character}${character}'`),
    );
    expect(result.stdout).toBe('a'.repeat(1023));
    expect(result.truncated).toBe(true);
  });

  test('a multi-byte character that ends exactly at the cap is kept', async () => {
    const result = await runShellCommand(options(`head -c 1022 /dev/zero | tr "\\0" a; printf 'éé'`));
    expect(result.stdout).toBe(`${'a'.repeat(1022)}é`);
  });
});

describe('runShellCommand: no descriptor leaks', () => {
  const openDescriptorCount = () => readdirSync('/proc/self/fd').length;

  /** One of each way a call can end: truncated, background child, escaped child, timeout, abort. */
  async function everyEnding(round: number): Promise<void> {
    await runShellCommand(options('head -c 100000 /dev/zero; head -c 5000 /dev/zero >&2'));
    await runShellCommand(options('sleep 600 & echo done'));
    const pidFile = join(temporary.path, `leak-escaped-${round}.pid`);
    await runShellCommand(options(`setsid sh -c 'echo $$ > ${pidFile}; exec sleep 600' & sleep 0.1`));
    process.kill(await readPidFile(pidFile), 'SIGKILL');
    const timers = manualTimers();
    const timedOut = runShellCommand(options('sleep 60', { timers }));
    timers.fire();
    await timedOut;
    const controller = new AbortController();
    const aborted = runShellCommand(options('sleep 60', { signal: controller.signal }));
    controller.abort(new ToolCancelledError('user'));
    await aborted;
  }

  test.skipIf(!existsSync('/proc/self/fd'))(
    'every way a call ends closes both pipes',
    async () => {
      await everyEnding(0); // Bun opens its own descriptors lazily on first use.
      const before = openDescriptorCount();
      for (let round = 1; round <= 3; round += 1) await everyEnding(round);
      expect(await eventually(() => openDescriptorCount() <= before)).toBe(true);
    },
    20_000,
  );
});

describe('runShellCommand: other interpreters', () => {
  test.skipIf(Bun.which('zsh') === null)('zsh runs the command with zsh -c', async () => {
    const result = await runShellCommand(options('[ -n "$ZSH_VERSION" ] && echo zsh:yes', { shell: 'zsh' }));
    expect(result).toMatchObject({ shell: 'zsh', exitCode: 0, stdout: 'zsh:yes\n' });
  });

  test('an interpreter missing at spawn time is a classified not_found error, not a crash', async () => {
    const missing = {
      kind: 'zsh' as const,
      executable: '/nonexistent/zsh',
      argumentsFor: (command: string) => ['/nonexistent/zsh', '-c', command],
    };
    const run = runShellCommand(options('true', { shell: 'zsh', interpreter: missing }));
    await expect(run).rejects.toMatchObject({ classification: 'not_found' });
  });
});
