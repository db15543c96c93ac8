import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { DatabaseToolSettingsRepository } from '../../src/db/database-tool-settings-repository.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { getEnabledToolRuntime } from '../../src/settings/tool-runtime.ts';
import { createTestRegistry } from '../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

describe.each(BACKENDS)('getEnabledToolRuntime over the %s repository', (backend) => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await createTestDatabase(backend);
  }, 30_000);
  afterAll(() => handle.dispose());

  test("offers the user's enabled tools; a corrupted row falls back to defaults and is logged", async () => {
    const userId = (await new DatabaseUserRepository(handle.database).create('alice')).user.id;
    const repository = new DatabaseToolSettingsRepository(handle.database);
    await repository.put(userId, 'tunable', { enabled: true, parameters: { ratio: 0.25 } });
    const registry = createTestRegistry();
    const invalid: string[] = [];
    const runtime = await getEnabledToolRuntime(repository, userId, {
      registry,
      onInvalidSettings: (error) => invalid.push(error.code),
    });
    expect(runtime.definitions.map((definition) => definition.name)).toEqual(['tunable', 'locked']);
    expect(runtime.savedSettings).toEqual({ tunable: { enabled: true, parameters: { ratio: 0.25 } } });

    await handle.database
      .sql`UPDATE user_tool_settings SET enabled = NULL, parameters_json = ${'{"ratio": "x"'}
      WHERE user_id = ${userId}`;
    const corrupted = await getEnabledToolRuntime(repository, userId, {
      registry,
      onInvalidSettings: (error) => invalid.push(error.code),
    });
    expect(corrupted.definitions.map((definition) => definition.name)).toEqual(['locked']);
    expect(invalid).toEqual(['invalid_type']);
  });
});
