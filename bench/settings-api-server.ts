/**
 * A server for `settings-api.bench.ts`, run as its own process so the load generator does not share
 * its event loop: `hello` (bare Bun.serve, the ceiling), `sqlite` or `postgres DATABASE_URL` (the real
 * Mango API via `startServer`). Prints `READY <url> <token>` and serves until SIGTERM.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_REQUEST_BODY_BYTES } from '../src/config.ts';
import { startServer } from '../src/server/start-server.ts';

const [kind, databaseUrl] = process.argv.slice(2);
let stop: () => Promise<void>;
if (kind === 'hello') {
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response('hello') });
  console.log(`READY http://127.0.0.1:${server.port} none`);
  stop = async () => {
    await server.stop(true);
  };
} else {
  const directory = await mkdtemp(join(tmpdir(), 'mango-bench-'));
  let token = '';
  const server = await startServer(
    {
      host: '127.0.0.1',
      port: 0,
      dataDirectory: directory,
      databaseUrl: kind === 'postgres' ? databaseUrl : undefined,
      shutdownTimeoutMs: 2_000,
      maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
      workspacesDirectory: `${directory}-workspaces`,
    },
    { print: (line) => (token ||= /mango_\S+/.exec(line)?.[0] ?? '') },
  );
  console.log(`READY ${server.url} ${token}`);
  stop = async () => {
    await server.stop();
    await rm(directory, { recursive: true, force: true });
    await rm(`${directory}-workspaces`, { recursive: true, force: true });
  };
}
process.on('SIGTERM', () => {
  void stop().then(() => process.exit(0));
});
