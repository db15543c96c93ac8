/**
 * Applies pending migrations and records each in `schema_migrations(version, name, applied_at)`.
 *
 * Safe when several processes start at once against one database:
 * - PostgreSQL: the whole run holds a session advisory lock on a dedicated connection, so a second
 *   instance waits, then finds everything applied.
 * - SQLite: each migration runs in a `BEGIN IMMEDIATE` transaction, which takes the file's write lock
 *   before reading `schema_migrations` (other processes wait on `busy_timeout`).
 * Each migration and its `schema_migrations` row commit together; a crash leaves it unapplied.
 */
import type { Database } from './database.ts';
import { MIGRATIONS, type Migration } from './migrations/all-migrations.ts';

/** Arbitrary constant naming Mango's migration lock among other advisory locks on the server. */
const POSTGRES_MIGRATION_LOCK_KEY = 7_206_461_801;

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;

export interface MigrationResult {
  /** Versions this call applied (empty when the schema was already current). */
  applied: number[];
}

/**
 * The list starts at 1 and strictly increases. Gaps are allowed: numbers are handed out ahead of time to
 * work that lands in parallel, and each version is applied (or skipped) on its own, so a later-landing
 * lower number is still applied once.
 */
function checkOrder(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    const previous = migrations[index - 1]?.version;
    const valid = previous === undefined ? migration.version === 1 : migration.version > previous;
    if (!valid) {
      const expected = previous === undefined ? '1' : `a version above ${previous}`;
      throw new Error(
        `Migration "${migration.name}" has version ${migration.version}, expected ${expected}.`,
      );
    }
  });
}

/**
 * Awaited before each migration of the list is looked at: between two SQLite transactions (no lock
 * held), and on PostgreSQL with the run's lock held. Tests interleave two migrators with it.
 */
export type BeforeMigration = (migration: Migration) => Promise<void>;

/** Applies every migration of `migrations` (default: all of Mango's) that the database lacks. */
export async function migrate(
  database: Database,
  migrations: readonly Migration[] = MIGRATIONS,
  now: () => number = Date.now,
  beforeMigration?: BeforeMigration,
): Promise<MigrationResult> {
  checkOrder(migrations);
  return database.dialect === 'postgres'
    ? migratePostgres(database, migrations, now, beforeMigration)
    : migrateSqlite(database, migrations, now, beforeMigration);
}

async function migrateSqlite(
  database: Database,
  migrations: readonly Migration[],
  now: () => number,
  beforeMigration: BeforeMigration | undefined,
): Promise<MigrationResult> {
  const { sql } = database;
  const applied: number[] = [];
  for (const migration of migrations) {
    await beforeMigration?.(migration);
    await sql.begin('immediate', async (transaction) => {
      await transaction.unsafe(CREATE_MIGRATIONS_TABLE);
      const rows =
        await transaction`SELECT version FROM schema_migrations WHERE version = ${migration.version}`;
      if (rows.length > 0) return;
      for (const statement of migration.sqlite) await transaction.unsafe(statement);
      await transaction`INSERT INTO schema_migrations (version, name, applied_at)
        VALUES (${migration.version}, ${migration.name}, ${new Date(now()).toISOString()})`;
      applied.push(migration.version);
    });
  }
  return { applied };
}

async function migratePostgres(
  database: Database,
  migrations: readonly Migration[],
  now: () => number,
  beforeMigration: BeforeMigration | undefined,
): Promise<MigrationResult> {
  const connection = await database.sql.reserve();
  const applied: number[] = [];
  try {
    await connection`SELECT pg_advisory_lock(${POSTGRES_MIGRATION_LOCK_KEY})`;
    try {
      await connection.unsafe(CREATE_MIGRATIONS_TABLE);
      const rows: { version: number }[] = await connection`SELECT version FROM schema_migrations`;
      const done = new Set(rows.map((row) => Number(row.version)));
      for (const migration of migrations) {
        await beforeMigration?.(migration);
        if (done.has(migration.version)) continue;
        await connection.begin(async (transaction) => {
          for (const statement of migration.postgres) await transaction.unsafe(statement);
          await transaction`INSERT INTO schema_migrations (version, name, applied_at)
            VALUES (${migration.version}, ${migration.name}, ${new Date(now()).toISOString()})`;
        });
        applied.push(migration.version);
      }
    } finally {
      await connection`SELECT pg_advisory_unlock(${POSTGRES_MIGRATION_LOCK_KEY})`;
    }
  } finally {
    connection.release();
  }
  return { applied };
}
