/**
 * Commands whose stdout is a result or a protocol keep log lines off it: `mango tool call` prints only
 * its JSON envelope on stdout, and the command's `shell_command` log line goes to stderr. Run as a real
 * process, as a script that parses the output would.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dir, '..', '..');
const temporary = await mkdtemp(join(tmpdir(), 'mango-cli-log-'));
afterAll(() => rm(temporary, { recursive: true, force: true }));

async function runMango(args: string[], environment: Record<string, string>) {
  const child = Bun.spawn([process.execPath, join(ROOT, 'src/cli/main.ts'), ...args], {
    cwd: temporary,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: temporary,
      MANGO_DATA_DIR: join(temporary, 'data'),
      MANGO_WORKSPACES_DIR: join(temporary, 'workspaces'),
      ...environment,
    },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { stdout, stderr, code };
}

describe('log lines stay off a result channel', () => {
  test('mango tool call bash prints only its envelope on stdout; the shell_command line is on stderr', async () => {
    const { stdout, stderr, code } = await runMango(
      ['tool', 'call', 'bash', '{"command":"echo hi"}', '--enable', '--cwd', temporary],
      { MANGO_SHELL_SANDBOX: 'off' },
    );
    expect(code).toBe(0);
    const envelope = JSON.parse(stdout) as { ok: boolean; result: { stdout: string; exitCode: number } };
    expect(envelope.ok).toBe(true);
    expect(envelope.result.stdout).toBe('hi\n');
    const logged = stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { event?: string; command?: string });
    expect(logged.filter((line) => line.event === 'shell_command').map((line) => line.command)).toEqual([
      'echo hi',
    ]);
  }, 30_000);
});
