/**
 * The real server process: first start prints a working token, SIGTERM shuts down cleanly, and a
 * `kill -9` in the middle of a write burst leaves a database that opens and whose every row parses.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { DatabaseToolSettingsRepository } from '../../src/db/database-tool-settings-repository.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { mergeToolSettings } from '../../src/tools/tool-settings-resolver.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { createTestRegistry } from '../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

describe.each(BACKENDS)('mango serve process on %s', (backend) => {
  let handle: TestDatabase | undefined;
  afterEach(async () => {
    await handle?.dispose();
    handle = undefined;
  });

  const envFor = (database: TestDatabase) => ({
    MANGO_DATA_DIR: database.config.dataDirectory,
    DATABASE_URL: database.config.databaseUrl ?? '',
  });

  test('first start prints a token that works; SIGTERM exits 0; a restart keeps settings and prints none', async () => {
    handle = await createTestDatabase(backend, { migrate: false });
    const server = await startServerProcess(envFor(handle));
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.output()).toContain('docs/operating.md, section "Users and tokens"');
    const headers = { authorization: `Bearer ${server.token}` };
    const put = await fetch(`${server.url}/api/settings/tools/tunable`, {
      method: 'PUT',
      headers,
      body: JSON.stringify({ enabled: true, parameters: { label: 'kept' } }),
    });
    expect(put.status).toBe(200);
    expect((await fetch(`${server.url}/api/settings/tools`)).status).toBe(401);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('Stopped.');

    const again = await startServerProcess(envFor(handle));
    expect(again.token).toBeUndefined();
    const listed = (await (await fetch(`${again.url}/api/settings/tools`, { headers })).json()) as {
      tools: { name: string; enabled: boolean; parameters: { label?: string } }[];
    };
    expect(listed.tools.find((tool) => tool.name === 'tunable')).toMatchObject({
      enabled: true,
      parameters: { label: 'kept' },
    });
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
  }, 60_000);

  test('kill -9 during a write burst: the database reopens and every row parses', async () => {
    handle = await createTestDatabase(backend, { migrate: false });
    const server = await startServerProcess(envFor(handle));
    const headers = { authorization: `Bearer ${server.token}` };
    let completed = 0;
    let killed = false;
    const writer = async (client: number) => {
      for (let index = 0; !killed; index++) {
        const value = client * 1000 + index;
        try {
          const response = await fetch(`${server.url}/api/settings/tools/tunable`, {
            method: 'PUT',
            headers,
            body: JSON.stringify({
              enabled: value % 2 === 0,
              parameters: {
                timeoutSeconds: 5 + (value % 596),
                label: `w${value}`,
                names: [`n${value}`, 'ü'],
              },
            }),
          });
          await response.arrayBuffer();
          completed++;
          if (completed === 60 && !killed) {
            killed = true;
            server.child.kill('SIGKILL');
          }
        } catch {
          return; // the server is gone
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, client) => writer(client)));
    expect(await server.exited).toBe('SIGKILL');

    const database = await handle.open();
    if (backend === 'sqlite') {
      expect(await database.sql`PRAGMA integrity_check`).toEqual([{ integrity_check: 'ok' }]);
    }
    const [user] = await new DatabaseUserRepository(database).list();
    const rows = await new DatabaseToolSettingsRepository(database).getAll(user!.id);
    const tool = createTestRegistry().get('tunable')!;
    expect(Object.keys(rows)).toEqual(['tunable']);
    const settings = mergeToolSettings(tool, rows.tunable as never);
    const value = Number((settings.parameters.label as string).slice(1));
    expect(settings).toEqual({
      enabled: value % 2 === 0,
      parameters: expect.objectContaining({ timeoutSeconds: 5 + (value % 596), names: [`n${value}`, 'ü'] }),
    });
  }, 60_000);
});
