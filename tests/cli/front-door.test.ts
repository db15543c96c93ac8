/**
 * The CLI's front door: `--help` and `--version`, `mango COMMAND --help`, usage printed once, every
 * usage mistake one line on stderr with exit 2, `mango tool list` one line per tool, and `mango serve`
 * (what `npm start` runs) printing the web app's URL and the providers, as a real process.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import packageJson from '../../package.json' with { type: 'json' };
import { CLI_USAGE } from '../../src/cli/main.ts';
import { listTools } from '../../src/tools/registry.ts';
import { runCliCaptured } from '../helpers/captured-io.ts';

const temporary = await mkdtemp(join(tmpdir(), 'mango-cli-front-'));
afterAll(() => rm(temporary, { recursive: true, force: true }));
const ROOT = resolve(import.meta.dir, '..', '..');

async function run(argv: string[], env: Record<string, string> = {}) {
  return runCliCaptured(argv, temporary, env);
}

describe('help and version', () => {
  test('--help prints the usage once, with one Usage heading, and exits 0', async () => {
    const { code, stdout, stderr } = await run(['--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout).toBe(`${CLI_USAGE}\n`);
    expect(stdout.match(/Usage:/g)).toHaveLength(1);
    for (const command of [
      'tool list',
      'serve',
      'user add',
      'workspace grant',
      'mcp',
      'chat',
      '--help | --version',
    ])
      expect(stdout).toContain(`  mango ${command}`);
  });

  test.each([['--version'], ['-V'], ['version']])('%s prints the version', async (flag) => {
    expect(await run([flag])).toEqual({ code: 0, stdout: `mango ${packageJson.version}\n`, stderr: '' });
  });

  test.each([
    ['tool', 'mango tool list [--json]'],
    ['serve', 'mango serve'],
    ['user', 'mango user add NAME'],
    ['workspace', 'mango workspace grant NAME DIR'],
    ['mcp', 'mango mcp --user NAME'],
    ['mcp-servers', 'mango mcp-servers list [--user NAME] [--json]'],
    ['chat', 'mango chat --provider P --model M'],
  ])('mango %s --help prints that command’s usage once', async (command, line) => {
    for (const flag of ['--help', '-h']) {
      const { code, stdout, stderr } = await run([command, flag]);
      expect(code).toBe(0);
      expect(stderr).toBe('');
      expect(stdout).toStartWith(`Usage:\n  ${line}`);
      expect(stdout.match(/Usage:/g)).toHaveLength(1);
    }
  });

  test('mango tool call --help is help, not a call', async () => {
    const { code, stdout } = await run(['tool', 'call', '--help']);
    expect(code).toBe(0);
    expect(stdout).toStartWith('Usage:\n  mango tool list');
  });
});

describe('usage mistakes are one line on stderr, exit 2', () => {
  test.each([
    [['nonsense'], 'mango: Unknown command "nonsense". See "mango --help".\n'],
    [['tool', '--bogus'], 'mango: Unknown tool subcommand "--bogus". See "mango tool --help".\n'],
    [['tool'], 'mango: mango tool needs a subcommand. See "mango tool --help".\n'],
    [['tool', 'list', '--nope'], `mango: Unknown option '--nope'. See "mango tool --help".\n`],
    [['serve', 'extra'], 'mango: mango serve takes no arguments, got extra. See "mango serve --help".\n'],
  ])('%p', async (argv, message) => {
    expect(await run(argv)).toEqual({ code: 2, stdout: '', stderr: message });
  });

  test('the installed command prints the same one line, and no stack trace', async () => {
    const child = Bun.spawn(['node', join(ROOT, 'bin', 'mango'), 'tool', 'list', '--nope'], {
      cwd: temporary,
      stdout: 'pipe',
      stderr: 'pipe',
      env: { ...process.env, MANGO_DATA_DIR: join(temporary, 'data') },
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    expect({ code, stdout, stderr }).toEqual({
      code: 2,
      stdout: '',
      stderr: `mango: Unknown option '--nope'. See "mango tool --help".\n`,
    });
  });
});

describe('mango tool list', () => {
  test('one line per tool, each within the terminal width, first sentence of its description', async () => {
    const { code, stdout } = await run(['tool', 'list'], { COLUMNS: '80' });
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    const tools = listTools();
    expect(lines).toHaveLength(tools.length);
    lines.forEach((line, index) => {
      expect(line.length).toBeLessThanOrEqual(80);
      expect(line).toStartWith(tools[index]!.definition.name);
    });
    expect(lines.find((line) => line.startsWith('read_file'))).toMatch(
      /^read_file +system +on {3}Reads a file\.$/,
    );
  });

  test('--json keeps the full descriptions', async () => {
    const { stdout } = await run(['tool', 'list', '--json']);
    const rows = JSON.parse(stdout) as { name: string; description: string }[];
    expect(rows.find((row) => row.name === 'read_file')?.description.length).toBeGreaterThan(40);
  });
});

describe('mango serve (npm start)', () => {
  test('prints the web app’s URL and which providers are configured', async () => {
    const child = Bun.spawn([process.execPath, join(ROOT, 'src', 'cli', 'main.ts'), 'serve'], {
      cwd: temporary,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      env: {
        PATH: process.env.PATH ?? '',
        HOME: temporary,
        HOST: '127.0.0.1',
        PORT: '0',
        MANGO_DATA_DIR: join(temporary, 'serve-data'),
        MANGO_WORKSPACES_DIR: join(temporary, 'serve-workspaces'),
        ANTHROPIC_API_KEY: 'test-key',
      },
    });
    let text = '';
    const reader = child.stdout.getReader();
    const decoder = new TextDecoder();
    const deadline = Date.now() + 20_000;
    while (!text.includes('not configured: openai-compatible') && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    child.kill('SIGTERM');
    await child.exited;
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
    expect(url).toBeDefined();
    const summary = text.slice(text.indexOf('Mango Tools API listening')).split('\n').slice(0, 7);
    expect(summary.slice(1)).toEqual([
      expect.stringMatching(/^Web app: (?:http:\/\/127\.0\.0\.1:\d+\/ \(sign in|not built)/),
      'Providers configured: anthropic',
      '  not configured: openai (OPENAI_API_KEY is not set.)',
      '  not configured: openai-compatible (OPENAI_COMPATIBLE_BASE_URL is not set.)',
      '  not configured: gemini (GEMINI_API_KEY is not set.)',
      '  not configured: gemini-generate-content (GEMINI_API_KEY is not set.)',
    ]);
  }, 30_000);
});
