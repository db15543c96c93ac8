/**
 * grep against ripgrep, the fastest common searcher: a generated tree of 50 000 files / ~520 MB and this
 * repository's node_modules, five pattern kinds, identical result sets checked, wall-time ratios printed.
 *
 * "ours auto" is the search loop the grep tool runs (`runGrepSearch`: the calling thread first, two workers
 * once the walk passes 1024 files and the pool has booted), "ours 1 thread" forces the calling thread, with
 * caps lifted so the whole result set can be compared; "first 100" is the grep tool itself with its default
 * maxResults (100) against `rg … | head -100`.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accessAt } from '../src/tools/access/reachable-set.ts';
import { executeTool } from '../src/tools/execution.ts';
import { compileGrepPattern } from '../src/tools/fs/grep/compile-grep-pattern.ts';
import { runGrepSearch } from '../src/tools/fs/grep/run-grep-search.ts';
import '../src/tools/builtin/register-builtin-tools.ts';
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

const generatedRoot = join(tmpdir(), `mango-bench-grep-${process.pid}`);
console.log('generating 50 000 files / ~520 MB…');
const began = performance.now();
const tree = generateTree(generatedRoot, 50_000, 520 * 1024 * 1024);
console.log(
  `generated ${tree.files} files, ${(tree.bytes / 1024 / 1024).toFixed(0)} MiB in ${((performance.now() - began) / 1000).toFixed(1)} s`,
);
try {
  await benchTree('generated tree', tree.root, PATTERNS);
  await benchTree(
    'repository-sized tree (node_modules)',
    join(import.meta.dir, '..', 'node_modules'),
    REPOSITORY_PATTERNS,
  );
} finally {
  tree.remove();
}
