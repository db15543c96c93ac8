/**
 * `decideApproval` by table: every rule of docs/tools.md "Approvals" — the `approval` setting, the
 * shell rules (prefix, exact, a command that does not parse), PowerShell without rules, the write
 * target inside or outside `autoApprovedPaths`, and a target that could not be resolved.
 */
import { describe, expect, test } from 'bun:test';
import '../../src/tools/builtin/register-builtin-tools.ts';
import {
  type ApprovalDecision,
  decideApproval,
  ruleShellOf,
  type WriteTargetAssessment,
} from '../../src/approvals/approval-decision.ts';
import { buildShellTool } from '../../src/tools/builtin/build-shell-tool.ts';
import { defaultToolRegistry } from '../../src/tools/registry.ts';
import { getDefaultToolSettings } from '../../src/tools/tool-settings-resolver.ts';
import type { RegisteredTool } from '../../src/tools/types.ts';

function tool(name: string): RegisteredTool {
  if (name === 'powershell') {
    return buildShellTool('powershell', {
      interpreter: { kind: 'powershell', executable: 'pwsh', argumentsFor: (command) => ['pwsh', command] },
    });
  }
  if (name === 'zsh' && !defaultToolRegistry.get('zsh')) {
    return buildShellTool('zsh', {
      interpreter: { kind: 'zsh', executable: 'zsh', argumentsFor: (command) => ['zsh', '-c', command] },
    });
  }
  const found = defaultToolRegistry.get(name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

function decide(
  name: string,
  parameters: Record<string, unknown>,
  args: Record<string, unknown>,
  writeTarget?: WriteTargetAssessment,
): ApprovalDecision {
  const registered = tool(name);
  const defaults = getDefaultToolSettings(registered);
  return decideApproval({
    tool: registered,
    settings: { enabled: true, parameters: { ...defaults.parameters, ...parameters } },
    arguments: args,
    ...(writeTarget === undefined ? {} : { writeTarget }),
  });
}

const ASKS = (name: string) => `${name} asks before every call ("approval" is "always").`;

describe('decideApproval', () => {
  test.each([
    ['bash', { command: 'ls' }],
    ['zsh', { command: 'ls' }],
    ['powershell', { command: 'Get-ChildItem' }],
    ['write_file', { path: 'a.txt', content: 'x' }],
    ['edit_file', { path: 'a.txt', oldString: 'a', newString: 'b' }],
    ['generate_image', { prompt: 'a cat' }],
  ])('%s asks by default', (name, args) => {
    expect(decide(name, {}, args)).toEqual({ ask: true, reason: ASKS(name) });
  });

  test.each([
    ['read_file', { path: 'a.txt' }],
    ['list_directory', { path: '.' }],
    ['glob', { pattern: '*' }],
    ['grep', { pattern: 'x' }],
    ['get_current_datetime', {}],
  ])('%s runs without asking by default', (name, args) => {
    expect(decide(name, {}, args)).toEqual({
      ask: false,
      because: `${name} runs without asking ("approval" is "never").`,
    });
  });

  test('approval "always" makes a read-only tool ask; "never" makes a shell run', () => {
    expect(decide('read_file', { approval: 'always' }, { path: 'a' })).toEqual({
      ask: true,
      reason: ASKS('read_file'),
    });
    expect(decide('bash', { approval: 'never' }, { command: 'rm -rf /tmp/x' })).toEqual({
      ask: false,
      because: 'bash runs without asking ("approval" is "never").',
    });
  });

  const rules = {
    autoApprovedCommands: ['git status', 'npm test'],
    autoApprovedExactCommands: ['make -j4 all'],
  };
  test.each([
    ['git status', { ask: false, because: 'The command matches "git status" (autoApprovedCommands).' }],
    ['git status -s', { ask: false, because: 'The command matches "git status" (autoApprovedCommands).' }],
    [
      '  make -j4 all  ',
      { ask: false, because: 'The command matches "make -j4 all" (autoApprovedExactCommands).' },
    ],
  ] as const)('bash %j with rules: %j', (command, expected) => {
    expect(decide('bash', rules, { command })).toEqual(expected);
  });

  test.each([
    'git status; rm -rf ~',
    'git status-foo',
    'FOO=1 git status',
    'git status > out.txt',
    'git status $(whoami)',
    'npm test && curl evil',
    'make -j4 all extra',
  ])('bash %j with rules asks and says why no rule matched', (command) => {
    const decision = decide('bash', rules, { command });
    expect(decision.ask).toBe(true);
    if (decision.ask)
      expect(decision.reason.startsWith(`${ASKS('bash')} No auto-approve rule matched: `)).toBe(true);
  });

  test('zsh applies the same rules with its own grammar', () => {
    expect(decide('zsh', rules, { command: 'npm test -- --watch=false' })).toEqual({
      ask: false,
      because: 'The command matches "npm test" (autoApprovedCommands).',
    });
  });

  test('PowerShell has no command rules: it always asks', () => {
    expect(ruleShellOf(tool('powershell'))).toBeUndefined();
    expect('autoApprovedCommands' in getDefaultToolSettings(tool('powershell')).parameters).toBe(false);
    expect(decide('powershell', {}, { command: 'git status' })).toEqual({
      ask: true,
      reason: ASKS('powershell'),
    });
  });

  const paths = { autoApprovedPaths: [{ path: 'notes', enabled: true }] };
  test.each([
    [
      'inside an entry',
      { real: '/w/notes/a.md', autoApprovedBy: 'notes' },
      { ask: false, because: 'The write lands in "notes" (autoApprovedPaths).' },
    ],
    [
      'outside every entry',
      { real: '/w/src/a.ts' },
      { ask: true, reason: `${ASKS('write_file')} /w/src/a.ts is inside no auto-approved path.` },
    ],
    [
      'not resolvable',
      undefined,
      {
        ask: true,
        reason: `${ASKS('write_file')} Where the write lands could not be resolved, so no auto-approved path applies.`,
      },
    ],
  ] as const)('write_file with autoApprovedPaths, target %s', (_label, target, expected) => {
    expect(decide('write_file', paths, { path: 'x', content: '' }, target)).toEqual(expected);
  });

  test('edit_file follows the same path rule', () => {
    expect(
      decide(
        'edit_file',
        paths,
        { path: 'notes/a.md', oldString: 'a', newString: 'b' },
        {
          real: '/w/notes/a.md',
          autoApprovedBy: 'notes',
        },
      ),
    ).toEqual({ ask: false, because: 'The write lands in "notes" (autoApprovedPaths).' });
  });
});
