import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hostShellSandbox, installShellSandbox } from '../../src/sandbox/host-shell-sandbox.ts';
import { createUnavailableShellSandbox } from '../../src/sandbox/shell-sandbox-config.ts';
import { runCliCaptured } from '../helpers/captured-io.ts';

const temporary = await mkdtemp(join(tmpdir(), 'mango-cli-'));
afterAll(() => rm(temporary, { recursive: true, force: true }));

async function run(argv: string[]) {
  return runCliCaptured(argv, temporary, {});
}

describe('mango tool call', () => {
  test('prints the envelope and exits 0 when ok', async () => {
    const { code, stdout } = await run([
      'tool',
      'call',
      'get_current_datetime',
      '{"timezone":"America/Sao_Paulo","locale":"pt-BR"}',
    ]);
    expect(code).toBe(0);
    const envelope = JSON.parse(stdout);
    expect(envelope.ok).toBe(true);
    expect(envelope.result.offset).toBe('GMT-3');
  });

  test('exits 1 with validation_failed for a bad zone', async () => {
    const { code, stdout } = await run([
      'tool',
      'call',
      'get_current_datetime',
      '{"timezone":"Mars/Olympus"}',
    ]);
    expect(code).toBe(1);
    expect(JSON.parse(stdout).error.classification).toBe('validation_failed');
  });

  test('exits 1 with unknown_tool', async () => {
    const { code, stdout } = await run(['tool', 'call', 'no_such_tool']);
    expect(code).toBe(1);
    expect(JSON.parse(stdout).error.classification).toBe('unknown_tool');
  });

  test.each([
    [['tool', 'call']],
    [['tool', 'call', 'get_current_datetime', '{not json']],
    [['tool', 'call', 'get_current_datetime', '--bogus']],
    [['tool', 'call', 'get_current_datetime', '--set', 'nosuch=1']],
    [['tool', 'call', 'get_current_datetime', '--set', 'novalue']],
    [['tool', 'frobnicate']],
    [['nonsense']],
  ])('usage error %p exits 2', async (argv) => {
    const { code, stderr } = await run(argv);
    expect(code).toBe(2);
    expect(stderr).toStartWith('mango: ');
  });
});

describe('mango tool list', () => {
  test('--json lists registered tools', async () => {
    const { code, stdout } = await run(['tool', 'list', '--json']);
    expect(code).toBe(0);
    const rows = JSON.parse(stdout) as {
      name: string;
      category: string;
      enabledByDefault: boolean;
      available: boolean;
      unavailableReason?: string;
      description: string;
    }[];
    expect(rows.find((row) => row.name === 'get_current_datetime')).toEqual({
      name: 'get_current_datetime',
      category: 'system',
      enabledByDefault: true,
      available: true,
      description:
        'Returns the current date and time: ISO UTC, Unix milliseconds, the localized date and time, and the UTC offset in the requested time zone.',
    });
  });
});

describe('mango tool list and the shell sandbox', () => {
  test('bash is listed with the sandbox availability, and the reason when it cannot run', async () => {
    const previous = hostShellSandbox();
    installShellSandbox(createUnavailableShellSandbox('The shell sandbox cannot run: no bwrap here.'));
    try {
      const json = JSON.parse((await run(['tool', 'list', '--json'])).stdout) as { name: string }[];
      expect(json.find((row) => row.name === 'bash')).toMatchObject({
        available: false,
        unavailableReason: 'The shell sandbox cannot run: no bwrap here.',
      });
      const text = (await run(['tool', 'list'])).stdout;
      expect(text).toMatch(
        /^bash +system +off +unavailable: The shell sandbox cannot run: no bwrap here\.$/m,
      );
    } finally {
      installShellSandbox(previous);
    }
  });
});

describe('operator mode never asks for approval', () => {
  test('write_file, whose approval is "always" by default, writes at once through call and replay', async () => {
    const called = join(temporary, 'called.txt');
    const { code, stdout } = await run([
      'tool',
      'call',
      'write_file',
      JSON.stringify({ path: called, content: 'from call\n' }),
    ]);
    expect({ code, ok: JSON.parse(stdout).ok }).toEqual({ code: 0, ok: true });
    expect(await Bun.file(called).text()).toBe('from call\n');

    const replayed = join(temporary, 'replayed.txt');
    const calls = join(temporary, 'write-calls.jsonl');
    await writeFile(
      calls,
      `${JSON.stringify({ name: 'write_file', args: { path: replayed, content: 'from replay\n' } })}\n`,
    );
    const replay = await run(['tool', 'replay', calls, '--cwd', resolve(temporary)]);
    expect({ code: replay.code, ok: JSON.parse(replay.stdout).ok }).toEqual({ code: 0, ok: true });
    expect(await Bun.file(replayed).text()).toBe('from replay\n');
  });
});

describe('mango tool replay', () => {
  test('runs every line in one context and prints one envelope a line', async () => {
    const calls = join(temporary, 'calls.jsonl');
    await writeFile(
      calls,
      [
        '{"name":"get_current_datetime","args":{"timezone":"Asia/Kolkata"}}',
        '',
        '{"name":"get_current_datetime","args":{"timezone":7}}',
        '{"name":"nope","args":{}}',
      ].join('\n'),
    );
    const { code, stdout } = await run(['tool', 'replay', calls, '--cwd', resolve(temporary)]);
    expect(code).toBe(0);
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => (line.ok ? 'ok' : line.error.classification))).toEqual([
      'ok',
      'validation_failed',
      'unknown_tool',
    ]);
    expect(lines[0].result.offset).toBe('GMT+5:30');
  });

  test('a malformed line is a usage error', async () => {
    const calls = join(temporary, 'bad.jsonl');
    await writeFile(calls, '{"args":{}}\n');
    expect((await run(['tool', 'replay', calls])).code).toBe(2);
  });
});
