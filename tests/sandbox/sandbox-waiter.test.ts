/**
 * The waiter's records: the interpreter's wait status, or why it never ran, keeping "no process could
 * be made" (the call fails, naming the limit) apart from "the interpreter could not be executed" (exit
 * 127, as a shell reports a missing command).
 */
import { describe, expect, test } from 'bun:test';
import { parseWaiterRecord, waitStatusOf } from '../../src/sandbox/sandbox-waiter.ts';
import { describeSandbox, useTestSandbox } from './sandbox-host.ts';

describe('parseWaiterRecord', () => {
  test.each([
    ['an exit', 'status 768\n', { kind: 'status', status: { exitCode: 3, signal: null } }],
    ['a death by signal', 'status 9\n', { kind: 'status', status: { exitCode: null, signal: 'SIGKILL' } }],
    [
      'a fork that failed for want of a process slot',
      'start-failed fork 11 Resource temporarily unavailable\n',
      { kind: 'start-failed', step: 'fork', errno: 'EAGAIN', reason: 'Resource temporarily unavailable' },
    ],
    [
      'an interpreter that could not be executed',
      'start-failed exec 2 No such file or directory\n',
      { kind: 'start-failed', step: 'exec', errno: 'ENOENT', reason: 'No such file or directory' },
    ],
    ['nothing (the waiter was killed)', '', undefined],
    ['a record cut short', 'status 2', undefined],
  ])('%s', (_name, written, expected) => {
    expect(parseWaiterRecord(written)).toEqual(expected as ReturnType<typeof parseWaiterRecord>);
  });

  test('an interpreter that could not be executed is exit 127; a failed fork has no wait status', () => {
    expect(waitStatusOf(parseWaiterRecord('start-failed exec 2 No such file or directory\n'))).toEqual({
      exitCode: 127,
      signal: null,
    });
    expect(waitStatusOf(parseWaiterRecord('start-failed fork 11 Resource temporarily unavailable\n'))).toBe(
      undefined,
    );
  });
});

describeSandbox('an interpreter missing in the sandbox', () => {
  const setup = useTestSandbox();

  test('is exit 127 with the reason on stderr: a result, not a failure to start', async () => {
    const result = await setup.sandbox.run({
      shell: 'bash',
      command: 'echo never',
      cwd: setup.layout.alice,
      reachable: setup.layout.reachable,
      deniedPaths: [],
      deniedEnvVars: [],
      interpreterPath: '/usr/bin/no-such-shell',
      userId: 'alice',
      chatId: undefined,
      timeoutMs: 30_000,
      maxOutputBytes: 4096,
    });
    expect(result).toMatchObject({
      exitCode: 127,
      signal: null,
      stdout: '',
      stderr: 'cannot run /usr/bin/no-such-shell: No such file or directory\n',
      termination: { kind: 'exited' },
    });
  });
});
