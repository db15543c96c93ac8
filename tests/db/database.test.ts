/**
 * SQLite's files are the server's own: opening the database leaves the data directory 0700 and
 * `mango.db`, `mango.db-wal` and `mango.db-shm` 0600, whatever the umask, and narrows what an older
 * version left wider (a 0755 directory, 0644 files, the WAL of a process that was killed) without
 * losing a row.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SQL } from 'bun';
import { type Database, openDatabase } from '../../src/db/database.ts';
import { makeOlderDataDirectory, OLDER_ROW } from '../helpers/older-data-directory.ts';

let base: string;
let opened: Database | undefined;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'mango-database-'));
});
afterEach(async () => {
  await opened?.close();
  opened = undefined;
  rmSync(base, { recursive: true, force: true });
});

/** The modes of the data directory and SQLite's three files ('-' for one that is missing). */
function modes(data: string): Record<string, string> {
  const modeOf = (path: string) => (existsSync(path) ? (statSync(path).mode & 0o7777).toString(8) : '-');
  return {
    directory: modeOf(data),
    database: modeOf(join(data, 'mango.db')),
    wal: modeOf(join(data, 'mango.db-wal')),
    shm: modeOf(join(data, 'mango.db-shm')),
  };
}

const PRIVATE = { directory: '700', database: '600', wal: '600', shm: '600' };

async function open(data: string): Promise<Database> {
  opened = await openDatabase({ databaseUrl: undefined, dataDirectory: data });
  return opened;
}

describe('openDatabase on SQLite', () => {
  test('a new data directory: 0700, and the three files 0600 under umask 0, as soon as it is open', async () => {
    const data = join(base, 'data');
    const previous = process.umask(0);
    try {
      await open(data);
    } finally {
      process.umask(previous);
    }
    expect(modes(data)).toEqual(PRIVATE);
  });

  test('SQLite makes the WAL files with mango.db’s mode: a later connection of its own, under umask 0, gets 0600', async () => {
    const data = join(base, 'data');
    await (await open(data)).close();
    opened = undefined;
    // A clean close checkpoints and removes them; the next connection's first access makes them anew.
    expect(modes(data)).toEqual({ ...PRIVATE, wal: '-', shm: '-' });
    const previous = process.umask(0);
    const sql = new SQL({ adapter: 'sqlite', filename: join(data, 'mango.db'), readwrite: true });
    try {
      await sql`CREATE TABLE later (x INTEGER)`;
      expect(modes(data)).toEqual(PRIVATE);
    } finally {
      process.umask(previous);
      await sql.close();
    }
  });

  test('what an older version left (0755 directory, 0644 database and WAL of a killed process) is narrowed, rows kept', async () => {
    const data = makeOlderDataDirectory(base, { database: true, killed: true });
    expect(modes(data)).toEqual({ directory: '755', database: '644', wal: '644', shm: '644' });
    const database = await open(data);
    expect(modes(data)).toEqual(PRIVATE);
    expect(await database.sql`SELECT x FROM older`).toEqual([{ x: OLDER_ROW }]);
  });
});
