/**
 * Instances of one PostgreSQL database must share their data and workspaces directories: a second
 * instance with its own data directory, or its own workspaces directory, refuses to start naming the
 * variable and the directory; one sharing both starts, and each sees the other in `server_instances`.
 * A stopped instance leaves neither its row nor its markers; a row whose heartbeat went stale is removed
 * by the next start, markers and all, and no longer binds it.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/config/config-error.ts';
import { DatabaseInstanceRepository } from '../../src/db/database-instance-repository.ts';
import { type RunningServer, startServer } from '../../src/server/start-server.ts';
import { createTestRegistry } from '../helpers/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

describe('shared directories across instances on postgres', () => {
  let handle: TestDatabase | undefined;
  const running: RunningServer[] = [];
  const temporary: string[] = [];
  afterEach(async () => {
    for (const server of running.splice(0)) await server.stop();
    await handle?.dispose();
    handle = undefined;
    for (const directory of temporary.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  function otherDirectory(prefix: string): string {
    const directory = mkdtempSync(join(tmpdir(), prefix));
    temporary.push(directory);
    return directory;
  }

  async function start(overrides: { dataDirectory?: string; workspacesDirectory?: string } = {}) {
    const server = await startServer(
      { ...handle!.config, ...overrides },
      { print: () => {}, registry: createTestRegistry(), env: {} },
    );
    running.push(server);
    return server;
  }

  async function refusal(overrides: { dataDirectory?: string; workspacesDirectory?: string }) {
    try {
      await start(overrides);
    } catch (error) {
      if (error instanceof ConfigError) return error;
      throw error;
    }
    throw new Error('expected the start to be refused');
  }

  test('an instance with its own data or workspaces directory refuses to start, naming it', async () => {
    handle = await createTestDatabase('postgres', { migrate: false });
    await start();
    const data = otherDirectory('mango-other-data-');
    const ownData = await refusal({ dataDirectory: data });
    expect(ownData.variable).toBe('MANGO_DATA_DIR');
    expect(ownData.message).toStartWith(
      `MANGO_DATA_DIR is not shared with the other instances of this database: ${join(data, 'instances')} lacks the marker of the instance on `,
    );
    const workspaces = otherDirectory('mango-other-workspaces-');
    const ownWorkspaces = await refusal({ workspacesDirectory: workspaces });
    expect(ownWorkspaces.variable).toBe('MANGO_WORKSPACES_DIR');
    expect(ownWorkspaces.message).toStartWith(
      `MANGO_WORKSPACES_DIR is not shared with the other instances of this database: ${join(workspaces, '.instances')} lacks the marker`,
    );
    // The refused starts left nothing behind: one instance is registered.
    const repository = new DatabaseInstanceRepository(handle.database);
    expect((await repository.list()).length).toBe(1);
  });

  test('sharing both, the second starts; stopped, an instance leaves no row and no marker', async () => {
    handle = await createTestDatabase('postgres', { migrate: false });
    const first = await start();
    await start();
    const repository = new DatabaseInstanceRepository(handle.database);
    const rows = await repository.list();
    expect(rows.length).toBe(2);
    await first.stop();
    const left = await repository.list();
    expect(left.length).toBe(1);
    const gone = rows.find((row) => row.id !== left[0]!.id)!;
    expect(existsSync(join(handle.config.dataDirectory, 'instances', gone.marker))).toBe(false);
    expect(existsSync(join(handle.config.workspacesDirectory, '.instances', gone.marker))).toBe(false);
    expect(existsSync(join(handle.config.dataDirectory, 'instances', left[0]!.marker))).toBe(true);
  });

  test('a row whose heartbeat went stale is removed by the next start and binds it no more', async () => {
    handle = await createTestDatabase('postgres');
    const repository = new DatabaseInstanceRepository(handle.database);
    const dead = 'dead-instance';
    await repository.register({
      id: dead,
      host: 'gone.example',
      pid: 4242,
      startedAt: '2026-01-01T00:00:00.000Z',
      heartbeatAt: '2026-01-01T00:00:00.000Z',
      marker: `${dead}.marker`,
    });
    mkdirSync(join(handle.config.dataDirectory, 'instances'), { recursive: true });
    await start({ workspacesDirectory: otherDirectory('mango-fresh-workspaces-') });
    expect((await repository.list()).map((row) => row.id)).not.toContain(dead);
  });
});
