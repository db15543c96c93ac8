/**
 * The program launcher on its own (outside a sandbox it is not PID 1, so it never kills anything but what
 * it started): it runs the program only after the start line, hands the program every byte after that
 * line, and exits with the program's status.
 */
import { describe, expect, test } from 'bun:test';
import {
  PROGRAM_LAUNCHER_START,
  programLauncherArguments,
} from '../../src/sandbox/sandbox-program-launcher.ts';

async function runGate(program: string[], stdin: string) {
  const child = Bun.spawn(programLauncherArguments('/usr/bin/perl', program), {
    stdin: new TextEncoder().encode(stdin),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { stdout, stderr, exitCode };
}

describe('the program launcher', () => {
  test('after the start line the program reads the rest of stdin exactly as written', async () => {
    expect(await runGate(['/usr/bin/cat'], `${PROGRAM_LAUNCHER_START}{"jsonrpc":"2.0"}\nsecond\n`)).toEqual({
      stdout: '{"jsonrpc":"2.0"}\nsecond\n',
      stderr: '',
      exitCode: 0,
    });
  });

  test.each([
    ['another first line', 'start\nhello\n'],
    ['a first line longer than the start line', 'gogogogogogo\n'],
    ['stdin closed before the start line', 'go'],
  ])('%s: the program never runs (exit 125)', async (_, stdin) => {
    expect(await runGate(['/usr/bin/echo', 'ran'], stdin)).toEqual({ stdout: '', stderr: '', exitCode: 125 });
  });

  test('the program’s exit status is the launcher’s, and a signal is 128 + its number', async () => {
    expect(await runGate(['/usr/bin/bash', '-c', 'exit 7'], PROGRAM_LAUNCHER_START)).toEqual({
      stdout: '',
      stderr: '',
      exitCode: 7,
    });
    expect(await runGate(['/usr/bin/bash', '-c', 'kill -TERM $$'], PROGRAM_LAUNCHER_START)).toEqual({
      stdout: '',
      stderr: '',
      exitCode: 143,
    });
  });

  test('a program that cannot be started is exit 127, saying why on stderr', async () => {
    expect(await runGate(['/nonexistent/program'], PROGRAM_LAUNCHER_START)).toEqual({
      stdout: '',
      stderr: 'cannot run /nonexistent/program: No such file or directory\n',
      exitCode: 127,
    });
  });
});
