/**
 * The sandbox's answer to a grant, over an in-memory id store and real directories: the grant's group
 * is always given, the uid check applies only as root with the sandbox on, `--fix-owner` is refused
 * where no per-user uid applies, and a full range or unreadable settings refuse with their reason.
 * The root path with real owners and `--fix-owner`: tests/cli/workspace-grant-check.test.ts.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandboxGrantPreparation } from '../../src/sandbox/sandbox-grant-preparation.ts';
import { readShellSandboxConfig } from '../../src/sandbox/shell-sandbox-config.ts';
import { MemorySandboxIdRepository } from '../helpers/test-sandbox-users.ts';

const base = realpathSync(mkdtempSync(join(tmpdir(), 'mango-grant-preparation-')));
chmodSync(base, 0o755);
afterAll(() => rmSync(base, { recursive: true, force: true }));

const NOW = () => Date.parse('2026-12-02T10:00:00.000Z');
const ENVIRONMENT = { MANGO_SANDBOX_UID_BASE: '1950000000', MANGO_SANDBOX_UID_COUNT: '100' };

function directory(name: string, mode: number): string {
  const path = join(base, name);
  mkdirSync(path);
  chmodSync(path, mode);
  return path;
}

describe('createSandboxGrantPreparation', () => {
  test('not root: the grant gets its group, nothing is checked, and --fix-owner is refused', async () => {
    const ids = new MemorySandboxIdRepository();
    const prepare = createSandboxGrantPreparation(ENVIRONMENT, { ids, processUid: 1000, now: NOW });
    const path = directory('closed', 0o700);
    expect(await prepare({ userId: 'u1', path, readOnly: false, fixOwner: false })).toEqual({ notes: [] });
    expect(await ids.list()).toEqual([
      { id: 1950000001, kind: 'grant', owner: path, createdAt: '2026-12-02T10:00:00.000Z' },
    ]);
    expect(await prepare({ userId: 'u1', path, readOnly: false, fixOwner: true })).toEqual({
      refusal:
        "--fix-owner gives the directory to the grant's group (1950000001), which only the sandbox's per-user uids carry, and this command runs as uid 1000, not root, so commands run as its own uid (run it as the server's user, root, for a uid per user).",
      notes: [],
    });
  });

  test('root with MANGO_SHELL_SANDBOX=off: commands run as the server, so nothing is checked', async () => {
    const ids = new MemorySandboxIdRepository();
    const environment = { ...ENVIRONMENT, MANGO_SHELL_SANDBOX: 'off' };
    const prepare = createSandboxGrantPreparation(environment, { ids, processUid: 0, now: NOW });
    const path = directory('unsandboxed', 0o700);
    expect(await prepare({ userId: 'u1', path, readOnly: true, fixOwner: false })).toEqual({ notes: [] });
    expect((await prepare({ userId: 'u1', path, readOnly: true, fixOwner: true })).refusal).toBe(
      "--fix-owner gives the directory to the grant's group (1950000001), which only the sandbox's per-user uids carry, and MANGO_SHELL_SANDBOX=off runs commands as the server's own uid.",
    );
  });

  test('root: the user gets a uid, and a directory that uid cannot enter is refused', async () => {
    const ids = new MemorySandboxIdRepository();
    const prepare = createSandboxGrantPreparation(ENVIRONMENT, { ids, processUid: 0, now: NOW });
    const open = directory('open', 0o777);
    expect(await prepare({ userId: 'u1', path: open, readOnly: false, fixOwner: false })).toEqual({
      notes: [],
    });
    expect((await ids.list()).map((row) => [row.id, row.kind, row.owner])).toEqual([
      [1950000001, 'grant', open],
      [1950000002, 'user', 'u1'],
    ]);
    const closed = directory('root-only', 0o700);
    const { refusal } = await prepare({ userId: 'u1', path: closed, readOnly: true, fixOwner: false });
    expect(refusal).toStartWith(
      `the user's commands run as uid 1950000002 (gid 1950000002, groups 1950000000, 1950000003) and cannot read and enter ${closed} (mode 0700,`,
    );
  });

  test('a full range refuses with the variable to raise, naming what found no id', async () => {
    const environment = { MANGO_SANDBOX_UID_BASE: '1950000000', MANGO_SANDBOX_UID_COUNT: '2' };
    const ids = new MemorySandboxIdRepository();
    const prepare = createSandboxGrantPreparation(environment, { ids, processUid: 0, now: NOW });
    const first = directory('first', 0o777);
    expect(await prepare({ userId: 'u1', path: first, readOnly: false, fixOwner: false })).toEqual({
      refusal:
        'every id of the sandbox range 1950000000–1950000001 is taken, so the user has no uid; raise MANGO_SANDBOX_UID_COUNT (ids are never reused).',
      notes: [],
    });
    const second = directory('second', 0o777);
    expect(await prepare({ userId: 'u1', path: second, readOnly: false, fixOwner: false })).toEqual({
      refusal:
        'every id of the sandbox range 1950000000–1950000001 is taken, so the directory cannot get a group of its own; raise MANGO_SANDBOX_UID_COUNT (ids are never reused).',
      notes: [],
    });
  });

  test('settings that cannot be read refuse the grant with the variable’s message', async () => {
    const environment = { MANGO_SANDBOX_UID_BASE: 'many' };
    let message = '';
    try {
      readShellSandboxConfig(environment);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('MANGO_SANDBOX_UID_BASE');
    const ids = new MemorySandboxIdRepository();
    const prepare = createSandboxGrantPreparation(environment, { ids, processUid: 0, now: NOW });
    expect(await prepare({ userId: 'u1', path: base, readOnly: true, fixOwner: false })).toEqual({
      refusal: `the shell sandbox settings cannot be read: ${message}`,
      notes: [],
    });
    expect(await ids.list()).toEqual([]);
  });
});
