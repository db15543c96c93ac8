/**
 * The swap fuzzer: an operation of the server repeats while a child process in the tenant's position
 * exchanges path components of the workspace with symlinks to an outside sentinel tree, thousands of times
 * a second (`renameat2(RENAME_EXCHANGE)`, see swap-exchanger.ts). Afterwards the sentinel must be
 * identical in bytes, modes, owners and link targets (snapshots before and after), and no output of the
 * operation may contain the sentinel's marker string (every file of the sentinel holds it, and every
 * directory has an entry named after it). A failing operation is fine, a leak is not.
 *
 * Usage, for any operation on a workspace (reads, writes, mounts, uploads):
 *
 *     const sentinel = createSentinelTree(join(temp, 'sentinel'), workspace);
 *     const report = await fuzzSwaps({
 *       workspace,                                 // real path of the tenant's tree
 *       componentsToSwap: ['inner', 'inner/deep', 'inner/deep/c.txt'],
 *       sentinel,
 *       operation: () => chat.call('grep', { pattern: 'needle', path: '.' }),
 *       iterations: 300,                          // at least this many runs…
 *       seconds: 10,                              // …or until this much time has passed
 *     });
 *     expect(report.leaks).toEqual([]);
 *     expect(report.sentinelAfter).toEqual(report.sentinelBefore);
 *
 * For the server's own writers (writes, uploads, chmod/chown as root), make the sentinel with
 * `{ privileged: true }`: every entry is then owned by root with mode 0700, and each directory also holds
 * a setuid-looking file (mode 04755, named `<marker>-setuid`), so a write, chmod or chown that lands in it
 * changes something the snapshot records (a chown or a write clears the setuid bit; a chmod changes
 * 0700). The tree must then be made by root. For what runs as another uid (a sandboxed command, an MCP
 * server), make it with `{ writable: true }`: every directory 0777 and file 0666, so that process could
 * read and change whatever of it a mount exposed.
 *
 * `componentsToSwap` are paths relative to the workspace, each an existing entry; entry `x/y` is swapped
 * with a link to `<sentinel>/x/y` (the sentinel mirrors the workspace, see createSentinelTree). Each
 * result (or thrown error) of `operation` is serialised with JSON and searched for the marker. The
 * workspace is left as it was found: the exchanger swaps every component back before it reports, and the
 * links it used are removed.
 */
import { expect } from 'bun:test';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { type ExchangerReport, type ExchangerRequest, SWAP_LINK_SUFFIX } from './swap-exchanger.ts';

export interface SentinelTree {
  /** Real path of the tree outside the workspace. */
  root: string;
  /** The string that appears in every file and in one entry name per directory. */
  marker: string;
}

/** One entry of a tree snapshot: what the sentinel must still be afterwards. */
export interface SnapshotEntry {
  type: 'file' | 'directory' | 'link' | 'other';
  mode: number;
  uid: number;
  gid: number;
  /** sha256 of a file's bytes, or a link's target. */
  content?: string;
}

export interface SwapFuzzOptions {
  workspace: string;
  componentsToSwap: string[];
  sentinel: SentinelTree;
  operation: (iteration: number) => Promise<unknown>;
  /** Runs at least this many times (default 300)… */
  iterations?: number;
  /** …unless this many seconds have passed first (default 10). */
  seconds?: number;
  /** Exchanges per burst of the exchanger (default 16, or one more at random; ~1 ms sleep between bursts). */
  burst?: number;
  /**
   * The user the exchanger runs as (default: the test's own). Given (the test must be root), the swap
   * links are that user's and the exchanger runs with its uid and gid only (`setpriv`), so the kernel
   * allows it exactly what that local user may rename: in a sticky directory like /tmp, only its own
   * entries. The entries' parents must be passable for it.
   */
  tenant?: { uid: number; gid: number };
}

export interface SwapFuzzReport {
  /** Times the operation ran. */
  iterations: number;
  /** Of those, how many threw or returned a failed tool result (`ok: false`). */
  failures: number;
  /** Exchanges the tenant made meanwhile. */
  swaps: number;
  elapsedSeconds: number;
  /** The outputs (JSON, cut to 500 characters) that contained the marker: must stay empty. */
  leaks: string[];
  sentinelBefore: Record<string, SnapshotEntry>;
  sentinelAfter: Record<string, SnapshotEntry>;
}

/** The fuzzer's marker: long and odd enough never to occur by chance. */
export const SENTINEL_MARKER = 'SENTINEL-8d1f0c2e-OUTSIDE';

export interface SentinelOptions {
  /** Default {@link SENTINEL_MARKER}. */
  marker?: string;
  /**
   * Root-owned, every entry mode 0700, plus a mode-04755 file in each directory: what a chmod, chown or
   * write of a root process would visibly change (requires running as root).
   */
  privileged?: boolean;
  /**
   * Every directory mode 0777 and file 0666: a process of another uid (a sandboxed command) that reached
   * the sentinel could change it, and the snapshot would show it. Not with `privileged`.
   */
  writable?: boolean;
}

/**
 * Mirrors the tree at `like` (directories and regular files) under `root`, every file holding
 * `needle <marker>` and every directory an extra `<marker>.txt`, so a read, listing or search that
 * reaches the sentinel shows the marker.
 */
export function createSentinelTree(root: string, like: string, options: SentinelOptions = {}): SentinelTree {
  const marker = options.marker ?? SENTINEL_MARKER;
  const privileged = options.privileged === true;
  const writable = options.writable === true;
  if (privileged && writable) throw new Error('a sentinel is privileged or writable, not both');
  if (privileged && process.getuid?.() !== 0) {
    throw new Error('a privileged sentinel is made by root (its entries are root-owned)');
  }
  const file = (path: string, mode: number) => {
    writeFileSync(path, `needle ${marker}\n`);
    if (privileged) {
      chownSync(path, 0, 0);
      chmodSync(path, mode);
    }
    if (writable) chmodSync(path, 0o666);
  };
  const copy = (from: string, to: string) => {
    mkdirSync(to, { recursive: true });
    file(join(to, `${marker}.txt`), 0o700);
    if (privileged) file(join(to, `${marker}-setuid`), 0o4755);
    for (const entry of readdirSync(from, { withFileTypes: true })) {
      if (entry.isDirectory()) copy(join(from, entry.name), join(to, entry.name));
      else if (entry.isFile()) file(join(to, entry.name), 0o700);
    }
    if (privileged) {
      chownSync(to, 0, 0);
      chmodSync(to, 0o700);
    }
    if (writable) chmodSync(to, 0o777);
  };
  copy(like, root);
  return { root, marker };
}

/** Every entry below `root` (and `root` itself as `.`) with its type, mode, owner and content. */
export function snapshotTree(root: string): Record<string, SnapshotEntry> {
  const snapshot: Record<string, SnapshotEntry> = {};
  const visit = (path: string) => {
    const stats = lstatSync(path);
    const entry: SnapshotEntry = {
      type: stats.isFile()
        ? 'file'
        : stats.isDirectory()
          ? 'directory'
          : stats.isSymbolicLink()
            ? 'link'
            : 'other',
      mode: stats.mode,
      uid: stats.uid,
      gid: stats.gid,
    };
    if (stats.isFile()) entry.content = createHash('sha256').update(readFileSync(path)).digest('hex');
    if (stats.isSymbolicLink()) entry.content = readlinkSync(path);
    snapshot[relative(root, path) || '.'] = entry;
    if (stats.isDirectory()) for (const name of readdirSync(path).sort()) visit(join(path, name));
  };
  visit(root);
  return snapshot;
}

/** Lines of a child's stdout, as they arrive. */
async function* linesOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = '';
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    pending += decoder.decode(value, { stream: true });
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      yield pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
  }
  if (pending !== '') yield pending;
}

function failed(outcome: unknown): boolean {
  return typeof outcome === 'object' && outcome !== null && (outcome as { ok?: unknown }).ok === false;
}

export async function fuzzSwaps(options: SwapFuzzOptions): Promise<SwapFuzzReport> {
  const iterations = options.iterations ?? 300;
  const seconds = options.seconds ?? 10;
  const { marker } = options.sentinel;
  const sentinelBefore = snapshotTree(options.sentinel.root);
  const entries = options.componentsToSwap.map((component) => join(options.workspace, component));
  const { tenant } = options;
  entries.forEach((entry, index) => {
    symlinkSync(join(options.sentinel.root, options.componentsToSwap[index]!), `${entry}${SWAP_LINK_SUFFIX}`);
    if (tenant) lchownSync(`${entry}${SWAP_LINK_SUFFIX}`, tenant.uid, tenant.gid);
  });
  const request: ExchangerRequest = { entries, burst: options.burst ?? 16 };
  const asTenant = tenant
    ? ['setpriv', `--reuid=${tenant.uid}`, `--regid=${tenant.gid}`, '--clear-groups', '--']
    : [];
  const child = Bun.spawn(
    [
      ...asTenant,
      process.execPath,
      new URL('./swap-exchanger.ts', import.meta.url).pathname,
      JSON.stringify(request),
    ],
    {
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
    },
  );
  const lines = linesOf(child.stdout);
  const report: SwapFuzzReport = {
    iterations: 0,
    failures: 0,
    swaps: 0,
    elapsedSeconds: 0,
    leaks: [],
    sentinelBefore,
    sentinelAfter: {},
  };
  let runError: unknown;
  try {
    const first = await lines.next();
    if (first.value !== 'ready') {
      throw new Error(
        `the exchanger did not start: ${first.value ?? ''} ${await new Response(child.stderr).text()}`,
      );
    }
    const started = performance.now();
    const deadline = started + seconds * 1000;
    while (report.iterations < iterations && performance.now() < deadline) {
      let output: string;
      try {
        const outcome = await options.operation(report.iterations);
        if (failed(outcome)) report.failures += 1;
        output = JSON.stringify(outcome) ?? '';
      } catch (error) {
        report.failures += 1;
        output = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
      if (output.includes(marker)) report.leaks.push(output.slice(0, 500));
      report.iterations += 1;
    }
    report.elapsedSeconds = (performance.now() - started) / 1000;
  } catch (error) {
    runError = error;
  }
  // Stopped whatever happened above, so no exchanger outlives the test.
  child.stdin.write('stop\n');
  await child.stdin.end();
  let last: string | undefined;
  for await (const line of lines) last = line;
  const exitCode = await child.exited;
  for (const entry of entries) rmSync(`${entry}${SWAP_LINK_SUFFIX}`, { force: true });
  if (runError !== undefined) throw runError;
  if (exitCode !== 0 || last === undefined) {
    throw new Error(`the exchanger failed (${exitCode}): ${await new Response(child.stderr).text()}`);
  }
  report.swaps = (JSON.parse(last) as ExchangerReport).swaps;
  for (const entry of entries) {
    if (lstatSync(entry).isSymbolicLink()) throw new Error(`${entry} was left swapped by the exchanger`);
  }
  report.sentinelAfter = snapshotTree(options.sentinel.root);
  return report;
}

/** Node's own wording of a failed system call (`EINVAL: invalid argument, readlink '…'`): a tool's refusal must be in its own words instead. */
export const RAW_SYSTEM_ERROR = /\bE[A-Z]+: [^,]+, [a-z0-9_]+ '/;

/**
 * What every fuzz test asserts of its report: nothing of the sentinel returned or changed (for a
 * `privileged` sentinel, its root-owned setuid file is checked to be there, so a chmod, chown or write
 * would have shown), the operation ran its iterations or its seconds, the tenant really swapped, and not
 * every call failed.
 */
export function expectSentinelHeld(
  report: SwapFuzzReport,
  bounds: { iterations: number; seconds: number; privileged?: SentinelTree },
): void {
  expect(report.leaks).toEqual([]);
  expect(report.sentinelAfter).toEqual(report.sentinelBefore);
  if (bounds.privileged !== undefined) {
    expect(report.sentinelBefore[`inner/${bounds.privileged.marker}-setuid`]).toMatchObject({
      mode: 0o104755,
      uid: 0,
      gid: 0,
    });
  }
  expect(report.iterations === bounds.iterations || report.elapsedSeconds >= bounds.seconds).toBe(true);
  expect(report.swaps).toBeGreaterThan(100);
  expect(report.failures).toBeLessThan(report.iterations);
}
