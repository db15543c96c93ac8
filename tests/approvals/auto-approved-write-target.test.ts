/**
 * `assessAutoApprovedWriteTarget` on real files: the target is resolved like the path policy resolves
 * it (relative to the working directory, `~`, symlinks followed), entries too; a symlink inside an
 * auto-approved directory that points out of it is not approved, one outside that points in is; a
 * disabled entry counts for nothing; a target the path policy refuses resolves to nothing (asked).
 * Also `summarizeToolCall`, the one line a person is asked about.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { assessAutoApprovedWriteTarget } from '../../src/approvals/auto-approved-write-target.ts';
import { summarizeToolCall } from '../../src/approvals/call-summary.ts';
import { prepareToolCall } from '../../src/tools/execution.ts';
import type { ToolCallContext } from '../../src/tools/types.ts';
import { makeReachableSet, makeTempDirectory, pathList } from '../helpers/tool-context.ts';

let temp: { path: string; remove: () => void };
let outside: { path: string; remove: () => void };
let context: ToolCallContext;
beforeAll(() => {
  temp = makeTempDirectory('mango-auto-approved-');
  outside = makeTempDirectory('mango-auto-approved-outside-');
  mkdirSync(join(temp.path, 'notes'));
  mkdirSync(join(temp.path, 'src'));
  symlinkSync(join(temp.path, 'src'), join(temp.path, 'notes', 'escape'));
  symlinkSync(join(temp.path, 'notes'), join(temp.path, 'link-to-notes'));
  symlinkSync(outside.path, join(temp.path, 'outside-link'));
  // A chat confined to its working directory: the outside directory is out of reach.
  context = {
    userId: 'u1',
    chatId: 'c1',
    reachable: makeReachableSet({ workingDirectory: temp.path, homeDirectory: temp.path, confined: true }),
  };
});
afterAll(() => {
  temp.remove();
  outside.remove();
});

async function target(path: string, autoApprovedPaths: ReturnType<typeof pathList>) {
  const prepared = prepareToolCall(
    'write_file',
    { path, content: '' },
    { parameters: { autoApprovedPaths } },
  );
  if (!prepared.ok) throw new Error(JSON.stringify(prepared.failure));
  return assessAutoApprovedWriteTarget(prepared.call, context);
}

describe('assessAutoApprovedWriteTarget', () => {
  test.each([
    ['notes/a.md', 'notes', 'notes/a.md'],
    ['./notes/deep/new.md', 'notes', 'notes/deep/new.md'],
    ['link-to-notes/b.md', 'notes', 'notes/b.md'],
  ])('%s lies inside the entry %s', async (path, entry, real) => {
    expect(await target(path, pathList(entry))).toEqual({
      real: join(temp.path, real),
      autoApprovedBy: entry,
    });
  });

  test.each([
    ['src/a.ts', pathList('notes'), 'src/a.ts'],
    ['notes/escape/a.ts', pathList('notes'), 'src/a.ts'],
    ['notes-extra/a.md', pathList('notes'), 'notes-extra/a.md'],
    ['notes/a.md', pathList(['notes', false]), 'notes/a.md'],
  ])('%s is not auto-approved', async (path, entries, real) => {
    expect(await target(path, entries)).toEqual({ real: join(temp.path, real) });
  });

  test('an entry spelled through a symlink matches at its real location', async () => {
    expect(await target('notes/c.md', pathList('link-to-notes'))).toEqual({
      real: join(temp.path, 'notes', 'c.md'),
      autoApprovedBy: 'link-to-notes',
    });
  });

  test('a target the path policy refuses resolves to nothing, so the call is asked about', async () => {
    expect(await target('outside-link/x.txt', pathList('outside-link'))).toBeUndefined();
    expect(await target('/etc/passwd', pathList('/etc'))).toBeUndefined();
  });

  test('a tool without autoApprovedPaths, or a call without a path, has no target', async () => {
    const read = prepareToolCall('read_file', { path: 'notes/a.md' });
    if (!read.ok) throw new Error('read_file call did not prepare');
    expect(await assessAutoApprovedWriteTarget(read.call, context)).toBeUndefined();
  });
});

describe('summarizeToolCall', () => {
  test.each([
    [{ command: 'git status' }, 'git status'],
    [{ command: 'echo "hi"\nrm -rf ~' }, 'echo "hi"\\nrm -rf ~'],
    [{ command: '\u001b[2Jclear' }, '\\u001b[2Jclear'],
    [{ path: 'notes/a.md', content: 'x' }, 'notes/a.md'],
    [{ prompt: 'a cat' }, '{"prompt":"a cat"}'],
  ])('%j → %s', (args, expected) => {
    expect(summarizeToolCall(args)).toBe(expected);
  });

  test('a long command is cut, saying so', () => {
    expect(summarizeToolCall({ command: 'x'.repeat(400) })).toBe(`${'x'.repeat(300)}… (cut, 400 characters)`);
  });
});
