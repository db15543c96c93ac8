/**
 * A PostgreSQL restart under a running server, over real HTTP, on a throw-away cluster of this test's
 * own: while it is down every API request is a 503 `database_unavailable` with `Retry-After` (no 500),
 * the log has one line for the outage and one for its end, `GET /api/health` (no token) says 503 then
 * 200, and the server serves again by itself once the database is back.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_REQUEST_BODY_BYTES, type ServerConfig } from '../../src/config.ts';
import { type Database, openDatabase } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createApp } from '../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../src/http/app-dependencies.ts';
import { isDatabaseUnavailableError } from '../../src/http/database-outage.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from '../helpers/throwaway-postgres.ts';
import { waitUntil } from '../helpers/wait-until.ts';

describe('isDatabaseUnavailableError', () => {
  test.each([
    [{ code: 'ERR_POSTGRES_CONNECTION_REFUSED' }, true],
    [{ code: 'ERR_POSTGRES_CONNECTION_CLOSED' }, true],
    [{ code: 'ERR_POSTGRES_SERVER_ERROR', errno: '57P01' }, true],
    [{ code: 'ERR_POSTGRES_SERVER_ERROR', errno: '08006' }, true],
    [{ code: 'SQLITE_BUSY' }, true],
    [{ code: 'SQLITE_IOERR_READ' }, true],
    [{ code: 'ERR_POSTGRES_SERVER_ERROR', errno: '23505' }, false],
    [{ code: 'SQLITE_CONSTRAINT_UNIQUE' }, false],
    [new Error('plain'), false],
    ['a string', false],
  ])('%p → %p', (error, expected) => {
    expect(isDatabaseUnavailableError(error)).toBe(expected);
  });
});

describe('a PostgreSQL restart under the running server', () => {
  let postgres: ThrowawayPostgres;
  let database: Database;
  let deps: AppDependencies;
  let server: ReturnType<typeof Bun.serve>;
  let url = '';
  let token = '';
  let directory = '';
  const logged: string[] = [];

  beforeAll(async () => {
    postgres = await startThrowawayPostgres();
    directory = await mkdtemp(join(tmpdir(), 'mango-outage-'));
    const config: ServerConfig = {
      host: '127.0.0.1',
      port: 0,
      dataDirectory: join(directory, 'data'),
      workspacesDirectory: join(directory, 'workspaces'),
      databaseUrl: postgres.url,
      shutdownTimeoutMs: 5_000,
      maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
    };
    database = await openDatabase({ ...config, maxConnections: 4 });
    await migrate(database);
    deps = createAppDependencies({ config, database, log: (message) => logged.push(message) });
    const app = createApp(deps);
    server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => app.handle(request) });
    url = `http://127.0.0.1:${server.port}`;
    token = (await deps.users.create('alice')).token;
  }, 60_000);

  afterAll(async () => {
    deps?.databaseOutage.close();
    server?.stop(true);
    await database?.close(1).catch(() => {});
    await postgres?.dispose();
    await rm(directory, { recursive: true, force: true });
    // The cluster's stop waits for its postmaster to exit (seconds on a loaded machine) and fails by
    // itself, naming it, past 30 s (throwaway-postgres.ts); this limit only has to exceed that.
  }, 60_000);

  const listTools = () =>
    fetch(`${url}/api/settings/tools`, { headers: { authorization: `Bearer ${token}` } });
  const health = () => fetch(`${url}/api/health`);

  /** Seconds until `condition` held; throws past `timeoutMs`. */
  async function secondsUntil(condition: () => Promise<boolean>, timeoutMs: number): Promise<number> {
    const started = performance.now();
    if (!(await waitUntil(condition, timeoutMs))) throw new Error(`not within ${timeoutMs} ms`);
    return (performance.now() - started) / 1000;
  }

  test('503 with Retry-After while down, one log line each way, health 503 then 200', async () => {
    expect((await listTools()).status).toBe(200);
    expect(await (await health()).json()).toEqual({ status: 'ok', database: 'reachable' });

    await postgres.stop();
    const statuses = new Map<number, number>();
    const bodies = new Set<string>();
    for (let index = 0; index < 60; index += 1) {
      const response = await listTools();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      expect(response.headers.get('retry-after')).toBe('2');
      bodies.add(await response.text());
    }
    expect([...statuses]).toEqual([[503, 60]]);
    expect([...bodies].map((body) => JSON.parse(body))).toEqual([
      { error: 'The database cannot be reached; retry shortly.', code: 'database_unavailable' },
    ]);
    const down = await health();
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('2');
    expect(await down.json()).toMatchObject({ status: 'unavailable', database: 'unreachable' });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toStartWith('[mango] database unreachable, answering 503 until it is back: ');

    const restartedAt = performance.now();
    await postgres.start();
    const secondsUntilHealthy = await secondsUntil(async () => (await health()).status === 200, 30_000);
    const secondsUntilServing = await secondsUntil(async () => (await listTools()).status === 200, 30_000);
    console.log(
      `[figures] requests failed while down: ${statuses.get(503)} of 60, all 503; health 200 ` +
        `${secondsUntilHealthy.toFixed(2)} s and API 200 ${((performance.now() - restartedAt) / 1000).toFixed(2)} s after pg_ctl start returned`,
    );
    expect(secondsUntilServing).toBeLessThan(30);
    expect(logged).toHaveLength(2);
    expect(logged[1]).toMatch(/^\[mango\] database reachable again after \d+\.\d s$/);

    // Served normally afterwards: ten requests, none failed.
    const after = await Promise.all(Array.from({ length: 10 }, () => listTools()));
    expect(after.map((response) => response.status)).toEqual(Array(10).fill(200));
  }, 90_000);

  test('the outage ends in the log by itself, through the probe, with no request after the restart', async () => {
    logged.length = 0;
    await postgres.stop();
    expect((await listTools()).status).toBe(503);
    expect(logged).toHaveLength(1);
    await postgres.start();
    await secondsUntil(async () => logged.length === 2, 30_000);
    expect(logged[1]).toMatch(/^\[mango\] database reachable again after \d+\.\d s$/);
    expect(deps.databaseOutage.active).toBe(false);
  }, 90_000);
});
