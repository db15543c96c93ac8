import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChatCommandDependencies, createChatCommand } from '../../src/cli/commands/chat.ts';
import { UsageError } from '../../src/cli/usage-error.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import {
  hangUntilAborted,
  ScriptedProvider,
  type ScriptStep,
  textResponse,
  toolCallsResponse,
} from '../helpers/scripted-provider.ts';
import { createTurnTools } from '../helpers/turn-tools.ts';

let directory: string;
beforeAll(() => {
  directory = realpathSync(mkdtempSync(join(tmpdir(), 'mango-chat-cli-')));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function run(argv: string[], steps: readonly ScriptStep[], overrides: Partial<ChatCommandDependencies> = {}) {
  const { registry } = createTurnTools();
  // Declares no traits: every call asks for approval.
  registry.register(makeTool({ name: 'risky', traits: undefined, execute: async () => ({ ran: true }) }));
  const provider = new ScriptedProvider(steps);
  let stdout = '';
  let stderr = '';
  const command = createChatCommand({
    createProvider: () => provider,
    onInterrupt: () => () => {},
    executeOptions: { registry },
    interactive: false,
    ...overrides,
  });
  const exit = command(argv, {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    cwd: directory,
    env: {},
  });
  return { exit, provider, output: () => ({ stdout, stderr }) };
}

const base = ['--provider', 'anthropic', '--model', 'claude-test'];

describe('mango chat', () => {
  test('--message runs one turn, showing calls and results as they happen', async () => {
    const { exit, provider, output } = run(
      [...base, '--cwd', '.', '--message', 'look'],
      [
        toolCallsResponse([{ id: 'a', name: 'grep', arguments: { value: '1' } }], 'Looking.'),
        textResponse('Done.'),
      ],
    );
    expect(await exit).toBe(0);
    expect(output().stdout).toMatch(
      /^Looking\.\n▸ grep \{"value":"1"\}\n {2}✓ grep \(\d+ ms\) \{"tool":"grep","value":"1"\}\nDone\.\n$/,
    );
    expect(provider.requests[0]?.systemPrompt).toContain(`Working directory: ${directory}`);
    // Without --user: operator mode, the whole filesystem minus the protected set.
    expect(provider.requests[0]?.systemPrompt).toContain(
      'Tools reach only these directories: / (read-write).',
    );
  });

  test('reads one message per line and keeps the history across turns', async () => {
    async function* lines() {
      yield 'first';
      yield '   ';
      yield 'second';
    }
    const { exit, provider } = run(base, [textResponse('one'), textResponse('two')], { readLines: lines });
    expect(await exit).toBe(0);
    expect(provider.requests[1]?.history).toEqual([
      { type: 'user_text', text: 'first' },
      { type: 'assistant_text', text: 'one' },
      { type: 'user_text', text: 'second' },
    ]);
  });

  test('Ctrl-C cancels the running turn', async () => {
    let interrupt = () => {};
    const hanging: ScriptStep = async function* (request) {
      yield { type: 'text_delta', delta: 'Thinking' };
      interrupt();
      yield* hangUntilAborted([])(request);
    };
    const { exit, output } = run([...base, '--message', 'go'], [hanging], {
      onInterrupt: (listener) => {
        interrupt = listener;
        return () => {
          interrupt = () => {};
        };
      },
    });
    expect(await exit).toBe(1);
    expect(output().stdout).toBe('Thinking\n[turn ended: cancelled — The turn was cancelled.]\n');
  });

  test('an unconfigured provider exits 1 with the reason', async () => {
    const { exit, output } = run([...base, '--message', 'x'], [], {
      createProvider: () => {
        throw new Error('ANTHROPIC_API_KEY is not set');
      },
    });
    expect(await exit).toBe(1);
    expect(output().stderr).toBe(
      'mango chat: provider "anthropic" is not available: ANTHROPIC_API_KEY is not set\n',
    );
  });

  test('a call that needs approval is denied when stdin is not a terminal', async () => {
    const { exit, output, provider } = run(
      [...base, '--message', 'go'],
      [toolCallsResponse([{ id: 'r', name: 'risky', arguments: { value: 'x' } }]), textResponse('Denied.')],
      { stdinIsTerminal: false },
    );
    expect(await exit).toBe(0);
    expect(output().stdout).toBe(
      [
        '▸ risky {"value":"x"}',
        '  ✗ denied (user) — no terminal to ask on',
        '  ✗ risky (0 ms) denied: The user denied this call: no terminal to ask on',
        'Denied.',
        '',
      ].join('\n'),
    );
    expect(provider.requests[1]?.history.at(-1)).toMatchObject({
      type: 'tool_result',
      callId: 'r',
      ok: false,
    });
  });

  test('on a terminal: y approves and the call runs; anything else denies', async () => {
    async function* answers() {
      yield 'y';
      yield 'no thanks';
    }
    const { exit, output } = run(
      [...base, '--message', 'go'],
      [
        toolCallsResponse([{ id: 'r1', name: 'risky', arguments: { value: 'one' } }]),
        toolCallsResponse([{ id: 'r2', name: 'risky', arguments: { value: 'two' } }]),
        textResponse('Done.'),
      ],
      { stdinIsTerminal: true, readLines: answers },
    );
    expect(await exit).toBe(0);
    const printed = output().stdout;
    expect(printed).toContain('Approve risky {"value":"one"}? [y/N] ');
    expect(printed).toMatch(/ {2}✓ approved\n {2}✓ risky \(\d+ ms\) \{"ran":true\}/);
    expect(printed).toContain('Approve risky {"value":"two"}? [y/N] ');
    expect(printed).toContain('  ✗ denied (user)\n  ✗ risky (0 ms) denied: The user denied this call.\n');
  });

  const usageCases = [
    {
      argv: ['--model', 'm'],
      message:
        '--provider must be one of: openai, openai-compatible, gemini, gemini-generate-content, anthropic.',
    },
    { argv: ['--provider', 'openai'], message: '--model is required.' },
    {
      argv: [...base, '--unrestricted'],
      message: '--unrestricted applies with --user NAME; without it the command runs in operator mode.',
    },
    { argv: [...base, '--cwd', 'missing'], message: '--cwd missing is not an existing directory.' },
    {
      argv: [...base, '--max-iterations', '0'],
      message: '--max-iterations must be an integer from 1 to 1000; got "0".',
    },
    { argv: [...base, '--enable', 'nope'], message: '--enable nope: no such tool.' },
  ];
  for (const { argv, message } of usageCases) {
    test(`usage error: ${message}`, async () => {
      const { exit } = run(argv, []);
      await expect(exit).rejects.toThrow(new UsageError(message));
    });
  }
});
