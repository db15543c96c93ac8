/**
 * A PostgreSQL cluster of a test's own (initdb in a temp dir, its own port, trust auth), which the test
 * may stop and start as an operator restarts a database — never the shared server other tests use.
 * Run as root, the server runs as the `postgres` user (PostgreSQL refuses root).
 */
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export interface ThrowawayPostgres {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its directory. */
  dispose(): Promise<void>;
}

async function run(command: string[], asPostgres: boolean): Promise<void> {
  const argv = asPostgres ? ['runuser', '-u', 'postgres', '--', ...command] : command;
  const child = Bun.spawn(argv, { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, LC_ALL: 'C' } });
  const [code, output, errors] = await Promise.all([
    child.exited,
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  if (code !== 0) throw new Error(`${argv.join(' ')} exited ${code}:\n${output}${errors}`);
}

async function freePort(): Promise<number> {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const asPostgres = userInfo().uid === 0;
  const directory = await mkdtemp(join(tmpdir(), 'mango-pg-'));
  const dataDirectory = join(directory, 'data');
  if (asPostgres) {
    const { uid, gid } = await postgresIds();
    await chown(directory, uid, gid);
  }
  await chmod(directory, 0o700);
  await run(['initdb', '-D', dataDirectory, '-U', 'postgres', '--auth=trust', '-E', 'UTF8'], asPostgres);
  const port = await freePort();
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () =>
    run(
      ['pg_ctl', '-D', dataDirectory, '-o', options, '-l', join(directory, 'log'), '-w', 'start'],
      asPostgres,
    );
  const stop = () => run(['pg_ctl', '-D', dataDirectory, '-m', 'immediate', '-w', 'stop'], asPostgres);
  await start();
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start: async () => {
      await start();
      running = true;
    },
    stop: async () => {
      await stop();
      running = false;
    },
    dispose: async () => {
      if (running) await stop().catch(() => {});
      await rm(directory, { recursive: true, force: true });
    },
  };
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const child = Bun.spawn(['id', '-u', 'postgres'], { stdout: 'pipe' });
  const uid = Number((await new Response(child.stdout).text()).trim());
  const group = Bun.spawn(['id', '-g', 'postgres'], { stdout: 'pipe' });
  const gid = Number((await new Response(group.stdout).text()).trim());
  return { uid, gid };
}
