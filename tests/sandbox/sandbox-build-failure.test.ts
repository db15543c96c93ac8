/**
 * A sandbox bubblewrap could not build is an `execution_error` saying what bubblewrap said, not a
 * command result: no command ran. A command that fails by itself still returns its result.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { sandboxBuildFailure } from '../../src/sandbox/sandbox-build-failure.ts';
import { computeReachableSet } from '../../src/tools/access/reachable-set.ts';
import { ToolError } from '../../src/tools/errors.ts';
import type { ShellCommandResult } from '../../src/tools/shell/run-shell-command.ts';
import { createTestSandbox, describeSandbox } from './sandbox-host.ts';

describeSandbox('a sandbox that cannot be built', () => {
  let sandbox: BubblewrapSandbox;
  let base: string;
  beforeAll(() => {
    sandbox = createTestSandbox();
    base = mkdtempSync('/var/tmp/mango-unbuildable-');
  });
  afterAll(() => {
    sandbox.dispose();
    rmSync(base, { recursive: true, force: true });
  });

  const run = (directory: string, command: string) =>
    sandbox.run({
      shell: 'bash',
      command,
      cwd: directory,
      reachable: computeReachableSet({
        workspaces: [{ path: directory, access: 'read-write', kind: 'personal' }],
        workingDirectory: directory,
        homeDirectory: directory,
        confined: true,
        protectedPaths: [],
      }),
      deniedPaths: [],
      deniedEnvVars: [],
      interpreterPath: '/usr/bin/bash',
      userId: 'builder',
      chatId: undefined,
      timeoutMs: 30_000,
      maxOutputBytes: 4096,
    });

  test.skipIf(process.getuid?.() !== 0)(
    'a working directory the sandbox uid cannot pass: execution_error with bubblewrap’s reason',
    async () => {
      // Root's 0700 directory: the sandbox uid cannot reach the workspace inside it.
      const closed = join(base, 'closed');
      const workspace = join(closed, 'workspace');
      mkdirSync(workspace, { recursive: true });
      chmodSync(closed, 0o700);
      chmodSync(workspace, 0o777);
      let thrown: unknown;
      try {
        await run(workspace, 'echo ran');
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ToolError);
      expect((thrown as ToolError).classification).toBe('execution_error');
      expect((thrown as ToolError).message).toBe(
        `The shell sandbox could not be built for this call, so the command did not run: bwrap: Can't find source path ${workspace}: Permission denied. Every directory the call reaches, and every directory above it, must be passable for the sandbox uid ${(await sandbox.identityFor('builder')).uid}.`,
      );
    },
  );

  test('a command that fails by itself is still its result', async () => {
    const open = join(base, 'open');
    mkdirSync(open, { recursive: true });
    chmodSync(base, 0o755);
    chmodSync(open, 0o777);
    const result = await run(open, 'echo failing >&2; exit 1');
    expect([result.exitCode, result.stderr, result.termination]).toEqual([
      1,
      'failing\n',
      { kind: 'exited' },
    ]);
  });
});

const unexpectedLimit = (): string => {
  throw new Error('not a process limit');
};

test("bubblewrap's refusal of a swapped mount source is an execution_error naming the source, not a permission hint", async () => {
  const result: ShellCommandResult = {
    shell: 'bash',
    command: 'true',
    cwd: '/w/alice/sub',
    exitCode: 1,
    signal: null,
    stdout: '',
    stderr: 'bwrap: Race condition binding dirfd /proc/self/fd/7\n',
    truncated: false,
    termination: { kind: 'exited' },
    durationMs: 3,
  };
  const sandbox = {
    started: async () => false,
    mounts: [{ source: '/w/alice/sub', kind: 'directory' as const, object: '1:2', descriptor: 7 }],
  };
  expect(await sandboxBuildFailure(sandbox, result, 61000, unexpectedLimit)).toBe(
    'The shell sandbox could not be built for this call, so the command did not run: a directory it mounts was replaced while the sandbox was built (bubblewrap: bwrap: Race condition binding dirfd /w/alice/sub). Nothing was mounted in its place.',
  );
});

test("bubblewrap's EAGAIN on its namespaces is the user's process limit, in the limit's own words", async () => {
  const result: ShellCommandResult = {
    shell: 'bash',
    command: 'echo hi',
    cwd: '/w/mallory',
    exitCode: 1,
    signal: null,
    stdout: '',
    stderr: 'bwrap: Creating new namespace failed: Resource temporarily unavailable\n',
    truncated: false,
    termination: { kind: 'exited' },
    durationMs: 3,
  };
  const sandbox = { started: async () => false, mounts: [] };
  const asked: [string, string][] = [];
  const limit = (errno: string, reason: string) => {
    asked.push([errno, reason]);
    return 'at the limit';
  };
  expect(await sandboxBuildFailure(sandbox, result, 61000, limit)).toBe('at the limit');
  expect(asked).toEqual([
    ['EAGAIN', 'bwrap: Creating new namespace failed: Resource temporarily unavailable'],
  ]);
});
