import { afterEach, describe, expect, test } from 'bun:test';
import { shellSettingsCleanupMigration } from '../../../src/db/migrations/0007-shell-settings-cleanup.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';

/** The rows before the migration: tool name → saved parameters text. */
const BEFORE: [string, string, string | null][] = [
  ['u1', 'bash', '{"timeoutSeconds":60,"allowedEnvVars":["SSH_AUTH_SOCK"],"deniedEnvVars":["AWS_*"]}'],
  ['u1', 'zsh', '{"allowedEnvVars":[]}'],
  ['u2', 'bash', '{"maxOutputBytes":2048}'],
  ['u2', 'zsh', 'not json {'],
  ['u2', 'powershell', '["allowedEnvVars"]'],
  ['u2', 'read_file', '{"allowedEnvVars":["KEEP"]}'],
  ['u3', 'bash', null],
];

describe.each(BACKENDS)('migration 7 (shell settings cleanup) on %s', (backend) => {
  let handle: TestDatabase | undefined;
  afterEach(async () => {
    await handle?.dispose();
    handle = undefined;
  });

  test("removes bash/zsh/powershell's saved allowedEnvVars, keeps every other value and any unreadable row", async () => {
    handle = await createTestDatabase(backend);
    const { sql } = handle.database;
    for (const id of ['u1', 'u2', 'u3']) {
      await sql`INSERT INTO users (id, name, created_at) VALUES (${id}, ${id}, '2026-01-01T00:00:00.000Z')`;
    }
    for (const [user, tool, parameters] of BEFORE) {
      await sql`INSERT INTO user_tool_settings (user_id, tool_name, parameters_json, updated_at)
        VALUES (${user}, ${tool}, ${parameters}, '2026-01-01T00:00:00.000Z')`;
    }
    const statements =
      backend === 'sqlite' ? shellSettingsCleanupMigration.sqlite : shellSettingsCleanupMigration.postgres;
    // Twice: a re-run (a second instance, a retried start) changes nothing more.
    for (let round = 0; round < 2; round += 1) {
      await sql.begin(async (transaction) => {
        for (const statement of statements) await transaction.unsafe(statement);
      });
    }
    const rows: { user_id: string; tool_name: string; parameters_json: string | null }[] =
      await sql`SELECT user_id, tool_name, parameters_json FROM user_tool_settings ORDER BY user_id, tool_name`;
    const parsed = rows.map((row) => {
      let value: unknown = row.parameters_json;
      try {
        value = row.parameters_json === null ? null : JSON.parse(row.parameters_json);
      } catch {
        // Unreadable rows are compared as text.
      }
      return [row.user_id, row.tool_name, value];
    });
    expect(parsed).toEqual([
      ['u1', 'bash', { timeoutSeconds: 60, deniedEnvVars: ['AWS_*'] }],
      ['u1', 'zsh', {}],
      ['u2', 'bash', { maxOutputBytes: 2048 }],
      ['u2', 'powershell', ['allowedEnvVars']],
      ['u2', 'read_file', { allowedEnvVars: ['KEEP'] }],
      ['u2', 'zsh', 'not json {'],
      ['u3', 'bash', null],
    ]);
  });

  test('is migration 7, named shell-settings-cleanup', () => {
    expect(shellSettingsCleanupMigration.version).toBe(7);
    expect(shellSettingsCleanupMigration.name).toBe('shell-settings-cleanup');
  });
});
