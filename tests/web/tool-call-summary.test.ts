import { describe, expect, test } from 'bun:test';
import {
  argumentSummary,
  groupStatus,
  groupSummary,
  MAX_SUMMARY_LENGTH,
} from '../../web/tool-call-summary.ts';
import type { ToolCallEntry, ToolCallStatus } from '../../web/transcript.ts';

const call = (name: string, status: ToolCallStatus = 'succeeded'): ToolCallEntry => ({
  kind: 'tool',
  callId: `${name}-${status}`,
  name,
  argumentsText: '{}',
  status,
  progress: [],
  step: 's',
});

describe('argumentSummary', () => {
  test.each([
    ['a command', '{"command":"npm test","cwd":"app"}', 'npm test'],
    ['a path', '{"path":"src/app.ts","startLine":3}', 'src/app.ts'],
    ['a pattern with its directory', '{"pattern":"TODO","path":"src"}', 'TODO in src'],
    ['a glob with its cwd', '{"pattern":"**/*.ts","cwd":"web"}', '**/*.ts in web'],
    ['a prompt, on one line', '{"prompt":"a ripe\\n  mango"}', 'a ripe mango'],
    ['no telling argument: the first string or number', '{"count":3,"label":"x"}', '3'],
    ['no argument at all', '{}', ''],
    ['arguments still streaming', '{"path":"sr', ''],
    ['not an object', '["a"]', ''],
  ])('%s', (_name, text, expected) => {
    expect(argumentSummary(text)).toBe(expected);
  });

  test('a long value is cut with an ellipsis', () => {
    const summary = argumentSummary(JSON.stringify({ command: 'x'.repeat(200) }));
    expect(summary).toBe(`${'x'.repeat(MAX_SUMMARY_LENGTH - 1)}…`);
  });
});

describe('groupSummary and groupStatus', () => {
  test('the tools in the order first called, repeats counted', () => {
    const calls = ['read_file', 'grep', 'read_file', 'glob', 'read_file'].map((name) => call(name));
    expect(groupSummary(calls)).toBe('5 tool calls: read_file ×3, grep, glob');
    expect(groupSummary([call('bash')])).toBe('1 tool call: bash');
  });

  test.each([
    ['all done', ['succeeded', 'succeeded'], { text: 'done', tone: 'done' }],
    ['some running', ['succeeded', 'running', 'streaming'], { text: '1 of 3 done', tone: 'live' }],
    [
      'one waits: that comes first',
      ['running', 'waiting', 'failed'],
      { text: '1 waiting for your approval', tone: 'waiting' },
    ],
    [
      'queued calls are not done',
      ['waiting', 'queued'],
      { text: '1 waiting for your approval', tone: 'waiting' },
    ],
    ['ended with failures', ['succeeded', 'failed', 'failed'], { text: '2 failed', tone: 'failed' }],
  ] as const)('%s', (_name, statuses, expected) => {
    expect(groupStatus(statuses.map((status, index) => call(`t${index}`, status)))).toEqual(expected);
  });
});
