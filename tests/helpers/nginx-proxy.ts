/**
 * A real nginx in front of Mango instances on loopback, running the configuration of docs/operating.md
 * ("Behind nginx") as written there: the one `nginx` block of that page, with the test's ports put in
 * place of its 8080 (nginx), 8081 and 8082 (the instances). Each placeholder must be found, so an edit of
 * the page that drops one fails here instead of testing another configuration.
 *
 * The page's block belongs in nginx's `http` block; around it this harness adds only what a process
 * of its own needs: `daemon off`, pid file, logs and temporary paths in its temporary directory, and a
 * response header naming the upstream that answered (`x-test-upstream`, `$upstream_addr`), so tests
 * see which instance served a request. `stop()` ends the master by its pid and removes the directory.
 */
import { chmod, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil } from './wait-until.ts';

export const NGINX = '/usr/sbin/nginx';
const OPERATING = join(import.meta.dir, '..', '..', 'docs', 'operating.md');

export interface NginxProxy {
  /** `http://127.0.0.1:PORT`. */
  url: string;
  /** The configuration nginx runs (the page's block with the test's ports, wrapped). */
  config: string;
  /** nginx's error log so far. */
  errors(): Promise<string>;
  stop(): Promise<void>;
}

/** The one ```nginx block of docs/operating.md. */
export async function readOperatingNginxBlock(): Promise<string> {
  const page = await readFile(OPERATING, 'utf8');
  const blocks = [...page.matchAll(/^```nginx\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
  if (blocks.length !== 1) throw new Error(`docs/operating.md has ${blocks.length} nginx blocks, not one`);
  return blocks[0]!;
}

function replaceExactly(text: string, from: string, to: string, times: number): string {
  const found = text.split(from).length - 1;
  if (found !== times) throw new Error(`the nginx block has "${from}" ${found} times, not ${times}`);
  return text.split(from).join(to);
}

/** A loopback port free a moment ago (nginx reports no port of its own for `listen 0`). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** `host:port` of an instance's `http://host:port` URL. */
function hostPort(url: string): string {
  return new URL(url).host;
}

/** Starts nginx with the page's configuration in front of `first` (8081) and `second` (8082). */
export async function startNginxProxy(first: string, second: string): Promise<NginxProxy> {
  const block = await readOperatingNginxBlock();
  const root = await realpath(await mkdtemp(join(tmpdir(), 'mango-nginx-')));
  // nginx's workers (nobody, when the master runs as root) write request bodies below it.
  await chmod(root, 0o755);
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    let snippet = replaceExactly(block, 'listen 8080;', `listen 127.0.0.1:${port};`, 1);
    snippet = replaceExactly(snippet, 'server 127.0.0.1:8081', `server ${hostPort(first)}`, 2);
    snippet = replaceExactly(snippet, 'server 127.0.0.1:8082', `server ${hostPort(second)}`, 2);
    const config = [
      'daemon off;',
      'worker_processes 1;',
      `pid ${root}/nginx.pid;`,
      `error_log ${root}/error.log notice;`,
      'events { worker_connections 256; }',
      'http {',
      `    access_log ${root}/access.log;`,
      `    client_body_temp_path ${root}/client-body;`,
      `    proxy_temp_path ${root}/proxy;`,
      `    fastcgi_temp_path ${root}/fastcgi;`,
      `    uwsgi_temp_path ${root}/uwsgi;`,
      `    scgi_temp_path ${root}/scgi;`,
      '    add_header x-test-upstream $upstream_addr always;',
      snippet,
      '}',
      '',
    ].join('\n');
    const file = join(root, 'nginx.conf');
    await writeFile(file, config);
    const child = Bun.spawn([NGINX, '-p', root, '-c', file, '-e', join(root, 'error.log')], {
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: 'pipe',
    });
    const url = `http://127.0.0.1:${port}`;
    const errors = async () => readFile(join(root, 'error.log'), 'utf8').catch(() => '');
    const answers = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return true;
      try {
        await (await fetch(`${url}/api/health`)).arrayBuffer();
        return true;
      } catch {
        return false;
      }
    };
    await waitUntil(answers, 10_000);
    if (child.exitCode === null && child.signalCode === null && (await answers())) {
      return {
        url,
        config,
        errors,
        stop: async () => {
          // Fast shutdown: a graceful one would wait for streams still open.
          child.kill('SIGTERM');
          await child.exited;
          await rm(root, { recursive: true, force: true });
        },
      };
    }
    const log = `${await new Response(child.stderr).text()}${await errors()}`;
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await child.exited;
    }
    // Another process took the port between `freePort` and nginx's bind: try another one.
    if (attempt < 3 && log.includes('Address already in use')) continue;
    await rm(root, { recursive: true, force: true });
    throw new Error(`nginx did not start:\n${log}`);
  }
}
