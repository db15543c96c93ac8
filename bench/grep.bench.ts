/**
 * grep against ripgrep, the fastest common searcher: a generated tree of 50 000 files / ~520 MB and this
 * repository's node_modules, five pattern kinds, identical result sets checked, wall-time ratios printed.
 *
 * "ours auto" is the search loop the grep tool runs (`runGrepSearch`: the calling thread first, two workers
 * once the walk passes 1024 files and the pool has booted), "ours 1 thread" forces the calling thread, with
 * caps lifted so the whole result set can be compared; "first 100" is the grep tool itself with its default
 * maxResults (100) against `rg … | head -100`.
 *
 * "through the worker" is the grep tool doing its file work in the user's warm file worker (in a real
 * bubblewrap sandbox, as the user's uid), paired in the same run with ripgrep: for each pattern,
 * GREP_BENCH_PAIRS (default 11) pairs that alternate which side goes first, each side the tool at its
 * largest caps (maxResults and maxMatchesPerFile 5000, the most one call returns) against
 * `rg … | head -5000`, and the in-process tool with the same caps as the control (its results must
 * equal the worker's). The figures are the median of the per-pair ratios per pattern, their median
 * over the patterns and the worst pattern; the last line is `GREP_JSON {...}` for bench/paired.ts.
 * GREP_BENCH_WORKER_ONLY=1 runs that part alone.
 */
import { chmodSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileWorkerPool } from '../src/file-worker/file-worker-pool.ts';
import { fileWorkerOperations } from '../src/file-worker/worker-file-operations.ts';
import { createBubblewrapSandbox } from '../src/sandbox/bubblewrap-sandbox.ts';
import { inProcessFileOperations, installFileOperations } from '../src/sandbox/host-file-operations.ts';
import { handToSandboxUser } from '../src/sandbox/sandbox-file-owner.ts';
import { accessAt } from '../src/tools/access/reachable-set.ts';
import { executeTool } from '../src/tools/execution.ts';
import { compileGrepPattern } from '../src/tools/fs/grep/compile-grep-pattern.ts';
import { runGrepSearch } from '../src/tools/fs/grep/run-grep-search.ts';
import '../src/tools/builtin/register-builtin-tools.ts';
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

const MAX_FILE_SIZE = 1024 * 1024;
const rg = ensureTool('rg', 'ripgrep');

interface BenchPattern {
  kind: string;
  pattern: string;
  caseInsensitive: boolean;
}

/** Patterns for the generated C-like tree. */
const PATTERNS: BenchPattern[] = [
  { kind: 'literal', pattern: 'mango_sentinel_token', caseInsensitive: false },
  { kind: 'common-literal', pattern: 'queue_worker', caseInsensitive: false },
  { kind: 'regex', pattern: 'struct \\w+_node', caseInsensitive: false },
  { kind: 'regex-without-literal', pattern: '\\w+\\s*=\\s*\\d+;', caseInsensitive: false },
  { kind: 'case-insensitive', pattern: 'error', caseInsensitive: true },
];

/** The same five kinds, chosen to occur in JavaScript and TypeScript sources. */
const REPOSITORY_PATTERNS: BenchPattern[] = [
  { kind: 'literal', pattern: 'createHash', caseInsensitive: false },
  { kind: 'common-literal', pattern: 'function', caseInsensitive: false },
  { kind: 'regex', pattern: 'import \\w+ from', caseInsensitive: false },
  { kind: 'regex-without-literal', pattern: '\\w+\\s*=\\s*\\d+;', caseInsensitive: false },
  { kind: 'case-insensitive', pattern: 'deprecated', caseInsensitive: true },
];

async function ours(
  root: string,
  pattern: string,
  caseInsensitive: boolean,
  workers: 'auto' | 0,
): Promise<Set<string>> {
  const reachable = benchReachable(root);
  const search = await runGrepSearch(
    {
      spec: compileGrepPattern(pattern, caseInsensitive),
      dot: false,
      maxResults: Number.MAX_SAFE_INTEGER,
      maxMatchesPerFile: Number.MAX_SAFE_INTEGER,
      maxFileSizeBytes: MAX_FILE_SIZE,
    },
    {
      // The per-candidate check the grep tool makes (its policy also consults the settings' path lists).
      allows: (candidate) => accessAt(reachable, candidate) !== undefined,
      root,
      rootIsFile: false,
      signal: new AbortController().signal,
      workers,
    },
  );
  const found = new Set<string>();
  for (const file of search.files) for (const match of file.matches) found.add(`${file.file}:${match.line}`);
  return found;
}

function rgArguments(root: string, pattern: string, caseInsensitive: boolean): string[] {
  return [
    rg,
    '--no-ignore',
    '--no-unicode',
    '--no-heading',
    '--with-filename',
    '--line-number',
    '--no-messages',
    '--max-filesize',
    `${MAX_FILE_SIZE}`,
    ...(caseInsensitive ? ['-i'] : []),
    '-e',
    pattern,
    root,
  ];
}

function theirs(root: string, pattern: string, caseInsensitive: boolean): Set<string> {
  const found = new Set<string>();
  for (const line of runCommand(rgArguments(root, pattern, caseInsensitive)).split('\n')) {
    const match = /^(.*?):(\d+):/.exec(line);
    if (match) found.add(`${match[1]}:${match[2]}`);
  }
  return found;
}

function compare(left: Set<string>, right: Set<string>): string {
  let onlyLeft = 0;
  for (const item of left) if (!right.has(item)) onlyLeft += 1;
  let onlyRight = 0;
  for (const item of right) if (!left.has(item)) onlyRight += 1;
  return onlyLeft === 0 && onlyRight === 0
    ? 'identical'
    : `DIFFER: ${onlyLeft} only ours, ${onlyRight} only rg`;
}

async function benchTree(label: string, root: string, patterns: BenchPattern[]): Promise<void> {
  console.log(`\n## ${label}: ${root}`);
  console.log(
    'kind                   | matches | sets      | rg ms  | ours auto ms | ratio | ours 1 thread | ratio | first100: rg|head ms, tool ms, ratio',
  );
  const ratios: number[] = [];
  const firstRatios: number[] = [];
  for (const { kind, pattern, caseInsensitive } of patterns) {
    const oursSet = await ours(root, pattern, caseInsensitive, 'auto');
    const theirSet = theirs(root, pattern, caseInsensitive);
    const rgMs = await medianMs(() => theirs(root, pattern, caseInsensitive));
    const oursMs = await medianMs(() => ours(root, pattern, caseInsensitive, 'auto'));
    const singleMs = await medianMs(() => ours(root, pattern, caseInsensitive, 0));
    const shell = `${rgArguments(root, pattern, caseInsensitive)
      .map((argument) => `'${argument.replace(/'/g, "'\\''")}'`)
      .join(' ')} | head -100`;
    const rgHeadMs = await medianMs(() => runCommand(['sh', '-c', shell]));
    const toolMs = await medianMs(() =>
      executeTool(
        'grep',
        { pattern, path: root, caseInsensitive },
        { userId: 'bench', reachable: benchReachable(root) },
      ),
    );
    ratios.push(oursMs / rgMs);
    firstRatios.push(toolMs / rgHeadMs);
    console.log(
      `${kind.padEnd(22)} | ${String(theirSet.size).padStart(7)} | ${compare(oursSet, theirSet).padEnd(9)} | ${rgMs.toFixed(0).padStart(6)} | ${oursMs.toFixed(0).padStart(12)} | ${formatRatio(oursMs, rgMs)} | ${singleMs.toFixed(0).padStart(13)} | ${formatRatio(singleMs, rgMs)} | ${rgHeadMs.toFixed(0)}, ${toolMs.toFixed(0)}, ${formatRatio(toolMs, rgHeadMs)}`,
    );
  }
  console.log(
    `median ratio ours/rg: ${median(ratios).toFixed(2)}× (worst ${Math.max(...ratios).toFixed(2)}×); first-100 median ${median(firstRatios).toFixed(2)}× (worst ${Math.max(...firstRatios).toFixed(2)}×)`,
  );
}

/** The caps of the paired part: the largest a grep call may have. */
const WORKER_CAPS = { maxResults: 5000, maxMatchesPerFile: 5000 };
const PAIRS = Number(process.env.GREP_BENCH_PAIRS ?? 11);

async function timed(run: () => Promise<unknown> | unknown): Promise<number> {
  const began = performance.now();
  await run();
  return performance.now() - began;
}

/** The grep tool through a warm file worker against rg, paired (see the header). */
async function benchThroughWorker(root: string): Promise<Record<string, number>> {
  const sandbox = createBubblewrapSandbox({ log: () => {}, users: testSandboxUsers() });
  if (!sandbox.status().available) {
    console.log(`\ngrep through the worker skipped: ${(sandbox.status() as { reason: string }).reason}`);
    sandbox.dispose();
    return {};
  }
  await handToSandboxUser(root, 'bench', sandbox);
  const pool = createFileWorkerPool({ sandbox: () => sandbox, maxWorkers: 2, idleMs: 600_000 });
  const worker = fileWorkerOperations(pool);
  const reachable = benchReachable(root);
  const tool = async (side: 'worker' | 'in-process', pattern: string, caseInsensitive: boolean) => {
    const uninstall = installFileOperations(side === 'worker' ? worker : inProcessFileOperations);
    try {
      const outcome = await executeTool(
        'grep',
        { pattern, path: root, caseInsensitive },
        { userId: 'bench', reachable },
        { parameters: WORKER_CAPS },
      );
      if (!outcome.ok) throw new Error(`${side}: ${outcome.error.message}`);
      return JSON.stringify((outcome.result as { matches: unknown }).matches);
    } finally {
      uninstall();
    }
  };
  const figures: Record<string, number> = {};
  const medians: number[] = [];
  console.log(
    `\n## through the worker, paired with rg: ${root} (${PAIRS} pairs a pattern, caps ${WORKER_CAPS.maxResults})`,
  );
  console.log(
    'kind                   | rg|head ms | worker ms | in-process ms | worker/rg (median of pairs) | worst pair',
  );
  try {
    for (const { kind, pattern, caseInsensitive } of PATTERNS) {
      const shell = `${rgArguments(root, pattern, caseInsensitive)
        .map((argument) => `'${argument.replace(/'/g, "'\\''")}'`)
        .join(' ')} | head -${WORKER_CAPS.maxResults}`;
      const rgRun = () => runCommand(['sh', '-c', shell]);
      // Warm both (the worker started, the code compiled) and check the worker finds what the server does.
      rgRun();
      const viaWorker = await tool('worker', pattern, caseInsensitive);
      const inProcess = await tool('in-process', pattern, caseInsensitive);
      if (viaWorker !== inProcess) throw new Error(`${kind}: the worker's matches differ from the server's`);
      const ratios: number[] = [];
      const rgTimes: number[] = [];
      const workerTimes: number[] = [];
      const inProcessTimes: number[] = [];
      for (let pair = 0; pair < PAIRS; pair += 1) {
        const runWorker = async () =>
          workerTimes.push(await timed(() => tool('worker', pattern, caseInsensitive)));
        const runRg = async () => rgTimes.push(await timed(rgRun));
        if (pair % 2 === 0) {
          await runWorker();
          await runRg();
        } else {
          await runRg();
          await runWorker();
        }
        ratios.push((workerTimes.at(-1) as number) / (rgTimes.at(-1) as number));
        inProcessTimes.push(await timed(() => tool('in-process', pattern, caseInsensitive)));
      }
      const ratio = median(ratios);
      medians.push(ratio);
      const key = kind.replaceAll('-', '_');
      figures[`${key}_rg_ms`] = median(rgTimes);
      figures[`${key}_worker_ms`] = median(workerTimes);
      figures[`${key}_in_process_ms`] = median(inProcessTimes);
      figures[`${key}_worker_ratio`] = ratio;
      console.log(
        `${kind.padEnd(22)} | ${median(rgTimes).toFixed(0).padStart(10)} | ${median(workerTimes).toFixed(0).padStart(9)} | ${median(inProcessTimes).toFixed(0).padStart(13)} | ${ratio.toFixed(2).padStart(26)}× | ${Math.max(...ratios).toFixed(2)}×`,
      );
    }
  } finally {
    pool.dispose();
    sandbox.dispose();
  }
  figures.worker_median_ratio = median(medians);
  figures.worker_worst_ratio = Math.max(...medians);
  console.log(
    `worker/rg: median over the patterns ${median(medians).toFixed(2)}× (worst pattern ${Math.max(...medians).toFixed(2)}×)`,
  );
  return figures;
}

// In /var/tmp, like a deployment's workspaces: a file worker's sandbox has a /tmp of its own.
const generatedRoot = join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), `mango-bench-grep-${process.pid}`);
console.log('generating 50 000 files / ~520 MB…');
const began = performance.now();
const tree = generateTree(generatedRoot, 50_000, 520 * 1024 * 1024);
console.log(
  `generated ${tree.files} files, ${(tree.bytes / 1024 / 1024).toFixed(0)} MiB in ${((performance.now() - began) / 1000).toFixed(1)} s`,
);
chmodSync(tree.root, 0o755);
try {
  if (process.env.GREP_BENCH_WORKER_ONLY !== '1') {
    await benchTree('generated tree', tree.root, PATTERNS);
    await benchTree(
      'repository-sized tree (node_modules)',
      join(import.meta.dir, '..', 'node_modules'),
      REPOSITORY_PATTERNS,
    );
  }
  console.log(`GREP_JSON ${JSON.stringify(await benchThroughWorker(tree.root))}`);
} finally {
  tree.remove();
}
