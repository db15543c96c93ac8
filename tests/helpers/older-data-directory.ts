/**
 * Test helper: a data directory as versions before the private data directory left it — mode 0755,
 * and a SQLite database made by SQLite itself under umask 022 (0644), in WAL mode with one table
 * `older` holding one row. A process that was killed instead of closing the database also leaves its
 * `-wal` (holding the commit) and `-shm` files, 0644 as well.
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

export const OLDER_ROW = 'row of an older version';

/** Makes `<parent>/data` so and returns its path. */
export function makeOlderDataDirectory(
  parent: string,
  options: { database: boolean; killed?: boolean } = { database: true },
): string {
  const data = join(parent, 'data');
  mkdirSync(data, { mode: 0o755 });
  chmodSync(data, 0o755);
  if (!options.database) return data;
  const end = options.killed ? "process.kill(process.pid, 'SIGKILL');" : 'await sql.close();';
  const older = Bun.spawnSync([
    'sh',
    '-c',
    'umask 022; exec "$0" -e "$1"',
    process.execPath,
    `const { SQL } = require('bun');
     const sql = new SQL({ adapter: 'sqlite', filename: ${JSON.stringify(join(data, 'mango.db'))}, create: true, readwrite: true });
     await sql.unsafe('PRAGMA journal_mode = WAL');
     await sql.unsafe('CREATE TABLE older (x TEXT)');
     await sql.unsafe(${JSON.stringify(`INSERT INTO older VALUES ('${OLDER_ROW}')`)});
     ${end}`,
  ]);
  const expected = options.killed ? 'SIGKILL' : undefined;
  if ((older.signalCode ?? undefined) !== expected || (!options.killed && older.exitCode !== 0)) {
    throw new Error(`the older version's process ended otherwise: ${older.stderr.toString()}`);
  }
  return data;
}
