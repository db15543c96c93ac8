/**
 * glob against fd, the fastest common finder, on a generated tree of 50 000 files / ~520 MB and on this
 * repository's node_modules, identical result sets checked. Caps are lifted so the whole set can be
 * compared.
 *
 * First, per tree: the glob tool's scan (`scanGlob`, Bun.Glob) against fd, each the median of 3 timed
 * runs, wall-time ratios printed. Then, on the generated tree, in one paired run: glob's file work as
 * the tool asks for it (`globFiles` and the server's second wall, fs/glob-matches.ts) through a warm
 * file worker (file-worker-pool.ts, in a real bubblewrap sandbox as the user's uid) and in this
 * process, against fd; each pair runs the three once, in an order that rotates, and the figure is the
 * median over the pairs of each pair's ratio to fd. The last line is `GLOB_JSON {...}`.
 */
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileWorkerPool } from '../src/file-worker/file-worker-pool.ts';
import { createWorkerFileOperations } from '../src/file-worker/worker-file-operations.ts';
import { createBubblewrapSandbox } from '../src/sandbox/bubblewrap-sandbox.ts';
import { inProcessFileOperations } from '../src/sandbox/host-file-operations.ts';
import { getAccessPolicy } from '../src/tools/access/access-policy.ts';
import type { FileOperations } from '../src/tools/fs/file-operations.ts';
import { admittedGlobMatches } from '../src/tools/fs/glob-matches.ts';
import { scanGlob } from '../src/tools/fs/scan-glob.ts';
import { userFileContext } from '../src/tools/user-file-context.ts';
import { testSandboxUsers } from '../tests/helpers/test-sandbox-users.ts';
import {
  ensureTool,
  formatRatio,
  generateTree,
  median,
  medianMs,
  runCommand,
} from './support/bench-helpers.ts';
import { benchReachable } from './support/bench-reachable.ts';

const PAIRS = Number(process.env.GLOB_BENCH_PAIRS ?? 11);
const fd = ensureTool('fdfind', 'fd-find');

async function ours(root: string, pattern: string): Promise<Set<string>> {
  const { matches } = await scanGlob({ pattern, root, dot: false, maxResults: Number.MAX_SAFE_INTEGER });
  return new Set(matches.paths());
}

function theirs(root: string, fdArguments: string[]): Set<string> {
  const output = runCommand([fd, '--no-ignore', '--absolute-path', ...fdArguments, root]);
  return new Set(
    output
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => (line.endsWith('/') ? line.slice(0, -1) : line)),
  );
}

function compare(left: Set<string>, right: Set<string>): string {
  let onlyLeft = 0;
  for (const item of left) if (!right.has(item)) onlyLeft += 1;
  let onlyRight = 0;
  for (const item of right) if (!left.has(item)) onlyRight += 1;
  return onlyLeft === 0 && onlyRight === 0
    ? 'identical'
    : `DIFFER: ${onlyLeft} only ours, ${onlyRight} only fd`;
}

async function benchTree(label: string, root: string, cases: [string, string[]][]): Promise<void> {
  console.log(`\n## ${label}: ${root}`);
  console.log('glob pattern        | fd arguments       | paths  | sets      | fd ms | ours ms | ratio');
  const ratios: number[] = [];
  for (const [pattern, fdArguments] of cases) {
    const oursSet = await ours(root, pattern);
    const theirSet = theirs(root, fdArguments);
    const fdMs = await medianMs(() => theirs(root, fdArguments));
    const oursMs = await medianMs(() => ours(root, pattern));
    ratios.push(oursMs / fdMs);
    console.log(
      `${pattern.padEnd(19)} | ${fdArguments.join(' ').padEnd(18)} | ${String(theirSet.size).padStart(6)} | ${compare(oursSet, theirSet).padEnd(9)} | ${fdMs.toFixed(0).padStart(5)} | ${oursMs.toFixed(0).padStart(7)} | ${formatRatio(oursMs, fdMs)}`,
    );
  }
  console.log(
    `median ratio ours/fd: ${median(ratios).toFixed(2)}× (worst ${Math.max(...ratios).toFixed(2)}×)`,
  );
}

const GENERATED_CASES: [string, string[]][] = [
  ['**/*.c', ['-g', '*.c']],
  ['**/file_1*.h', ['-g', 'file_1*.h']],
  ['**', ['-g', '*']],
];

/** glob's file work as the tool asks for it: the operation, then the server's second wall. */
async function globWork(operations: FileOperations, root: string, pattern: string): Promise<Set<string>> {
  const outcome = await operations.globFiles({
    pattern,
    cwd: root,
    dot: false,
    maxResults: Number.MAX_SAFE_INTEGER,
  });
  const policy = await getAccessPolicy(context);
  return new Set(admittedGlobMatches(outcome, { pattern, shown: root, absolute: root }, policy).paths);
}

async function timed(run: () => Promise<unknown> | unknown): Promise<number> {
  const began = performance.now();
  await run();
  return performance.now() - began;
}

// Outside /tmp (the sandbox's /tmp is its own) and passable by the sandbox's uid, like a workspace.
const generatedBase = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'mango-bench-glob-'));
chmodSync(generatedBase, 0o755);
const generatedRoot = join(generatedBase, 'tree');
const reachable = benchReachable(generatedBase);
const context = userFileContext('bench', reachable, Date.now);
const sandbox = createBubblewrapSandbox({ log: () => {}, users: testSandboxUsers() });
const pool = createFileWorkerPool({ sandbox: () => sandbox, maxWorkers: 4, idleMs: 600_000, log: () => {} });
process.on('exit', () => {
  pool.dispose();
  sandbox.dispose();
  rmSync(generatedBase, { recursive: true, force: true });
});

console.log('generating 50 000 files / ~520 MB…');
const tree = generateTree(generatedRoot, 50_000, 520 * 1024 * 1024);
await benchTree('generated tree', tree.root, GENERATED_CASES);
await benchTree('repository-sized tree (node_modules)', join(import.meta.dir, '..', 'node_modules'), [
  ['**/*.js', ['-g', '*.js']],
  ['**/package.json', ['-g', 'package.json']],
  ['**', ['-g', '*']],
]);

const figures: Record<string, number> = {};
if (!sandbox.status().available) {
  console.log(`\nglob through a worker skipped: ${(sandbox.status() as { reason: string }).reason}`);
} else {
  const worker = createWorkerFileOperations(context, pool);
  const here = inProcessFileOperations(context);
  console.log(
    `\n## generated tree, paired: ${PAIRS} pairs, each fd, in process and through a warm worker once`,
  );
  console.log(
    'glob pattern        | paths  | sets (worker, in process) | fd ms | in-process ms | worker ms | in-process/fd | worker/fd   (medians over the pairs)',
  );
  const workerRatios: number[] = [];
  const localRatios: number[] = [];
  for (const [pattern, fdArguments] of GENERATED_CASES) {
    const theirSet = theirs(tree.root, fdArguments);
    // Warm: the worker started, the code paths compiled, the tree in the page cache.
    const workerSet = await globWork(worker, tree.root, pattern);
    const localSet = await globWork(here, tree.root, pattern);
    const sides = {
      fd: () => theirs(tree.root, fdArguments),
      local: () => globWork(here, tree.root, pattern),
      worker: () => globWork(worker, tree.root, pattern),
    };
    const orders = [
      ['fd', 'local', 'worker'],
      ['worker', 'fd', 'local'],
      ['local', 'worker', 'fd'],
    ] as const;
    const times = { fd: [] as number[], local: [] as number[], worker: [] as number[] };
    const pairWorker: number[] = [];
    const pairLocal: number[] = [];
    for (let pair = 0; pair < PAIRS; pair += 1) {
      const took: Record<string, number> = {};
      for (const side of orders[pair % orders.length] as readonly (keyof typeof sides)[]) {
        took[side] = await timed(sides[side]);
      }
      const [fdMs, localMs, workerMs] = [took.fd as number, took.local as number, took.worker as number];
      times.fd.push(fdMs);
      times.local.push(localMs);
      times.worker.push(workerMs);
      pairWorker.push(workerMs / fdMs);
      pairLocal.push(localMs / fdMs);
    }
    const key = pattern === '**' ? 'all' : pattern === '**/*.c' ? 'c' : 'file_1_h';
    figures[`${key}_fd_ms`] = median(times.fd);
    figures[`${key}_in_process_ms`] = median(times.local);
    figures[`${key}_worker_ms`] = median(times.worker);
    figures[`${key}_in_process_ratio`] = median(pairLocal);
    figures[`${key}_worker_ratio`] = median(pairWorker);
    workerRatios.push(median(pairWorker));
    localRatios.push(median(pairLocal));
    const sets = `${compare(workerSet, theirSet)}, ${compare(localSet, theirSet)}`;
    console.log(
      `${pattern.padEnd(19)} | ${String(theirSet.size).padStart(6)} | ${sets.padEnd(25)} | ${median(times.fd).toFixed(0).padStart(5)} | ${median(times.local).toFixed(0).padStart(13)} | ${median(times.worker).toFixed(0).padStart(9)} | ${median(pairLocal).toFixed(2).padStart(12)}× | ${median(pairWorker).toFixed(2)}×`,
    );
  }
  figures.median_in_process_ratio = median(localRatios);
  figures.median_worker_ratio = median(workerRatios);
  figures.worst_worker_ratio = Math.max(...workerRatios);
  console.log(
    `median over the patterns: in process ${median(localRatios).toFixed(2)}× fd, through the worker ${median(workerRatios).toFixed(2)}× fd (worst ${Math.max(...workerRatios).toFixed(2)}×)`,
  );
}
console.log(`GLOB_JSON ${JSON.stringify(figures)}`);
// The warm worker's pool would keep this process alive until it idles out: end now (the exit handler
// stops it and removes the tree).
process.exit(0);
