/**
 * The words around a waiting call: its arguments read as an object, the command a shell call carries,
 * the prefix "Always allow…" proposes, and the status line's summary of what waits.
 */
import { describe, expect, test } from 'bun:test';
import {
  approvalSummary,
  commandOf,
  parseApprovalArguments,
  suggestedPrefix,
} from '../../web/approval-request-view.ts';
import { waitingStatusText } from '../../web/chat-approvals.ts';
import type { ToolCallEntry } from '../../web/transcript.ts';

describe('parseApprovalArguments and commandOf', () => {
  test('an object is read; anything else is not an argument object', () => {
    expect(parseApprovalArguments('{"command":"ls -la","timeoutSeconds":5}')).toEqual({
      command: 'ls -la',
      timeoutSeconds: 5,
    });
    expect(parseApprovalArguments('[1,2]')).toBeUndefined();
    expect(parseApprovalArguments('null')).toBeUndefined();
    expect(parseApprovalArguments('{"command":')).toBeUndefined();
  });
  test('the command is a string `command` only', () => {
    expect(commandOf({ command: 'git status' })).toBe('git status');
    expect(commandOf({ command: ['git', 'status'] })).toBeUndefined();
    expect(commandOf(undefined)).toBeUndefined();
  });
});

describe('suggestedPrefix', () => {
  test("the command's first two words, blanks collapsed", () => {
    expect(suggestedPrefix('git status --short')).toBe('git status');
    expect(suggestedPrefix('  npm   test  -- --watch ')).toBe('npm test');
    expect(suggestedPrefix('make')).toBe('make');
    expect(suggestedPrefix('ls\t-la\nfoo')).toBe('ls -la');
  });
});

describe('approvalSummary and waitingStatusText', () => {
  const call = (name: string, args: unknown): ToolCallEntry => ({
    kind: 'tool',
    callId: name,
    name,
    argumentsText: JSON.stringify(args),
    status: 'waiting',
    progress: [],
    step: name,
  });
  test('a command, else a path, else the tool name', () => {
    expect(approvalSummary('bash', { command: 'rm -rf build' })).toBe('bash: rm -rf build');
    expect(approvalSummary('write_file', { path: 'notes.md', content: 'x' })).toBe('write_file: notes.md');
    expect(approvalSummary('generate_image', { prompt: 'a mango' })).toBe('generate_image');
  });
  test('one waiting call is named; several are counted', () => {
    expect(waitingStatusText([call('bash', { command: 'make deploy' })])).toBe(
      'Waiting for your approval: bash: make deploy',
    );
    expect(waitingStatusText([call('bash', { command: 'a' }), call('edit_file', { path: 'b' })])).toBe(
      'Waiting for your approval: 2 calls',
    );
  });
});
