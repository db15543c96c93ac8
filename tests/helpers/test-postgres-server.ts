/**
 * The PostgreSQL server a test run creates its databases on: `MANGO_TEST_POSTGRES_URL` when set (an
 * existing server, e.g. the machine's own), otherwise one cluster of our own for the whole `bun test`
 * process, started on first use, so a run that never touches PostgreSQL starts none. Before starting it,
 * the clusters that dead runs left behind are cleaned up. The preload (`tests/preload.ts`) stops it once
 * every test file has run.
 */
import { removeStaleTestPostgres } from './stale-test-postgres.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from './throwaway-postgres.ts';

let started: Promise<ThrowawayPostgres> | undefined;

async function startOwnServer(): Promise<ThrowawayPostgres> {
  await removeStaleTestPostgres();
  return startThrowawayPostgres();
}

/** An admin URL of the test server (a superuser, on its `postgres` or given database). */
export async function testPostgresUrl(): Promise<string> {
  const configured = process.env.MANGO_TEST_POSTGRES_URL;
  if (configured) return configured;
  started ??= startOwnServer();
  // A failed start is not remembered, so that the next caller reports its own attempt.
  started.catch(() => {
    started = undefined;
  });
  return (await started).url;
}

/** Stops and removes the cluster `testPostgresUrl` started, if any. */
export async function stopTestPostgres(): Promise<void> {
  const server = started;
  started = undefined;
  if (server) await (await server.catch(() => undefined))?.dispose();
}
