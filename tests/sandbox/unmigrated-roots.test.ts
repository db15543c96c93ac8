/** Roots still owned by the uid of earlier versions: the count a root server prints at start. */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { lchownSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { countUnmigratedWorkspaces, unmigratedWorkspacesNotice } from '../../src/sandbox/unmigrated-roots.ts';
import { makeTempDirectory } from '../helpers/tool-context.ts';

const LEGACY = 61000;
const asRoot = process.getuid?.() === 0;

let temp: { path: string; remove: () => void };
let workspaces: string;
let grants: string[];

beforeEach(() => {
  temp = makeTempDirectory('mango-unmigrated-');
  workspaces = join(temp.path, 'workspaces');
  mkdirSync(workspaces);
  grants = [join(temp.path, 'grant-a'), join(temp.path, 'grant-b')];
  for (const path of [
    ...grants,
    join(workspaces, 'user-1'),
    join(workspaces, 'user-2'),
    join(workspaces, 'user-3'),
  ]) {
    mkdirSync(path);
  }
  writeFileSync(join(workspaces, 'stray-file'), 'not a workspace\n');
  symlinkSync(join(workspaces, 'user-1'), join(workspaces, 'link-to-user-1'));
  if (asRoot) {
    for (const path of [
      join(workspaces, 'user-1'),
      join(workspaces, 'user-2'),
      join(workspaces, 'stray-file'),
      join(workspaces, 'link-to-user-1'),
      grants[0]!,
    ]) {
      lchownSync(path, LEGACY, LEGACY);
    }
  }
});

afterEach(() => temp.remove());

describe.skipIf(!asRoot)('countUnmigratedWorkspaces', () => {
  test('counts the directories of the legacy uid directly in the workspaces directory and the grants, once each', () => {
    // user-1, user-2 and grant-a; a file or a link of the legacy uid is no workspace, a repeated grant one root.
    expect(countUnmigratedWorkspaces(workspaces, [...grants, grants[0]!], LEGACY)).toBe(3);
    expect(countUnmigratedWorkspaces(workspaces, [], 61001)).toBe(0);
  });

  test('a missing workspaces directory or grant counts nothing', () => {
    expect(
      countUnmigratedWorkspaces(join(temp.path, 'missing'), [join(temp.path, 'gone'), grants[0]!], LEGACY),
    ).toBe(1);
  });
});

describe.skipIf(!asRoot)('unmigratedWorkspacesNotice', () => {
  test('a root server names the count, the uid and the command', () => {
    expect(unmigratedWorkspacesNotice({}, workspaces, grants, true)).toBe(
      '3 workspaces still belong to uid 61000 (MANGO_SANDBOX_UID) from before per-user uids: shell commands there are refused until you run `mango workspace migrate-owners`.',
    );
    lchownSync(join(workspaces, 'user-2'), 0, 0);
    lchownSync(grants[0]!, 0, 0);
    expect(unmigratedWorkspacesNotice({}, workspaces, grants, true)).toBe(
      '1 workspace still belongs to uid 61000 (MANGO_SANDBOX_UID) from before per-user uids: shell commands there are refused until you run `mango workspace migrate-owners`.',
    );
    lchownSync(join(workspaces, 'user-3'), 62000, 62000);
    expect(unmigratedWorkspacesNotice({ MANGO_SANDBOX_UID: '62000' }, workspaces, grants, true)).toBe(
      '1 workspace still belongs to uid 62000 (MANGO_SANDBOX_UID) from before per-user uids: shell commands there are refused until you run `mango workspace migrate-owners`.',
    );
  });

  test('says nothing when nothing is refused: no unmigrated root, no root server, no sandbox', () => {
    expect(unmigratedWorkspacesNotice({}, workspaces, grants, false)).toBeUndefined();
    expect(
      unmigratedWorkspacesNotice({ MANGO_SHELL_SANDBOX: 'off' }, workspaces, grants, true),
    ).toBeUndefined();
    // A misconfigured sandbox says so on its own start-up line.
    expect(
      unmigratedWorkspacesNotice({ MANGO_SANDBOX_UID: 'many' }, workspaces, grants, true),
    ).toBeUndefined();
    expect(
      unmigratedWorkspacesNotice({ MANGO_SANDBOX_UID: '1234' }, workspaces, grants, true),
    ).toBeUndefined();
  });
});
