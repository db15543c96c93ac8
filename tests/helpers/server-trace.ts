/**
 * Test helper: what a server process itself asks the kernel about names while a piece of work runs.
 * strace attaches to the server's pid, following its threads (`-f`; processes it started before, such
 * as its file workers, are not followed), with descriptors shown as their paths (`-y`), for the calls
 * that take a name or list a directory; the lines naming a path under a given directory are kept.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil } from './wait-until.ts';

/** The calls that take a name, or list a directory. */
const TRACED = [
  'open',
  'openat',
  'openat2',
  'creat',
  'stat',
  'lstat',
  'newfstatat',
  'statx',
  'access',
  'faccessat',
  'faccessat2',
  'readlink',
  'readlinkat',
  'mkdir',
  'mkdirat',
  'unlink',
  'unlinkat',
  'rename',
  'renameat',
  'renameat2',
  'link',
  'linkat',
  'getdents64',
  'chown',
  'fchownat',
  'chmod',
  'fchmodat',
].join(',');

export const strace = Bun.which('strace');

/** The traced lines of `pid` naming `under` while `work` ran, and what it returned. */
export async function traceNamesDuring<T>(
  pid: number,
  under: string,
  work: () => Promise<T>,
): Promise<{ result: T; lines: string[] }> {
  if (strace === null) throw new Error('strace is not installed (.ci/setup installs it)');
  const directory = mkdtempSync(join(tmpdir(), 'mango-server-trace-'));
  const output = join(directory, 'trace');
  try {
    const tracer = Bun.spawn([strace, '-f', '-y', '-e', `trace=${TRACED}`, '-o', output, '-p', String(pid)], {
      stdout: 'ignore',
      stderr: 'pipe',
    });
    let said = '';
    void (async () => {
      for await (const chunk of tracer.stderr as unknown as AsyncIterable<Uint8Array>)
        said += new TextDecoder().decode(chunk);
    })();
    if (!(await waitUntil(() => said.includes(`Process ${pid} attached`), 10_000))) {
      tracer.kill('SIGKILL');
      throw new Error(`strace did not attach to ${pid}: ${said}`);
    }
    const result = await work();
    tracer.kill('SIGINT');
    await tracer.exited;
    const lines = readFileSync(output, 'utf8')
      .split('\n')
      .filter((line) => line.includes(under));
    return { result, lines };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
