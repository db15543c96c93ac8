/**
 * A CLI command that opens the database makes the data directory the server's own first, as the
 * server's start does: an older version's (0755, a 0644 `mango.db`) is narrowed to 0700 and 0600, a
 * missing one is made 0700 with PostgreSQL too, and one that cannot be used ends the command with exit
 * code 2 and the reason.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/main.ts';
import { capturedIo } from '../helpers/captured-io.ts';
import { makeOlderDataDirectory } from '../helpers/older-data-directory.ts';
import { createPostgresDatabase } from '../helpers/test-database.ts';

let base: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'mango-cli-data-'));
});
afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

function modeOf(path: string): string {
  return existsSync(path) ? (statSync(path).mode & 0o7777).toString(8) : '-';
}

async function userAdd(env: Record<string, string>) {
  const { io, written } = capturedIo(base, { MANGO_WORKSPACES_DIR: join(base, 'workspaces'), ...env });
  return { code: await runCli(['user', 'add', 'alice'], io), stderr: written.stderr };
}

describe('mango user add and the data directory', () => {
  test('an older version’s 0755 directory and 0644 mango.db are 0700 and 0600 after the command', async () => {
    const data = makeOlderDataDirectory(base);
    expect([modeOf(data), modeOf(join(data, 'mango.db'))]).toEqual(['755', '644']);
    expect(await userAdd({ MANGO_DATA_DIR: data })).toEqual({ code: 0, stderr: '' });
    expect([modeOf(data), modeOf(join(data, 'mango.db'))]).toEqual(['700', '600']);
  });

  test('with PostgreSQL, a missing data directory is made 0700 (images are kept there)', async () => {
    const postgres = await createPostgresDatabase();
    try {
      const data = join(base, 'data');
      expect(await userAdd({ MANGO_DATA_DIR: data, DATABASE_URL: postgres.url })).toEqual({
        code: 0,
        stderr: '',
      });
      expect([modeOf(data), modeOf(join(data, 'mango.db'))]).toEqual(['700', '-']);
    } finally {
      await postgres.drop();
    }
  });

  test('a file where the data directory should be: exit code 2 and the reason, nothing changed', async () => {
    const data = join(base, 'data');
    writeFileSync(data, 'not a directory', { mode: 0o644 });
    expect(await userAdd({ MANGO_DATA_DIR: data })).toEqual({
      code: 2,
      stderr: `mango: The data directory ${data} (MANGO_DATA_DIR) cannot be made the server's own (mode 0700): ENOTDIR: not a directory, openat2 "${data}"\n`,
    });
    expect(modeOf(data)).toBe('644');
  });
});
