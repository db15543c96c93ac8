/**
 * glob against fd, the fastest common finder: the glob tool's scan (`scanGlob`, Bun.Glob) on a generated tree
 * of 50 000 files / ~520 MB and on this repository's node_modules, identical result sets checked, wall-time
 * ratios printed. Caps are lifted so the whole set can be compared.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanGlob } from '../src/tools/fs/scan-glob.ts';
import {
  ensureTool,
  formatRatio,
  generateTree,
  median,
  medianMs,
  runCommand,
} from './support/bench-helpers.ts';

const fd = ensureTool('fdfind', 'fd-find');

async function ours(root: string, pattern: string): Promise<Set<string>> {
  const { paths } = await scanGlob({ pattern, root, dot: false, maxResults: Number.MAX_SAFE_INTEGER });
  return new Set(paths);
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

const generatedRoot = join(tmpdir(), `mango-bench-glob-${process.pid}`);
console.log('generating 50 000 files / ~520 MB…');
const tree = generateTree(generatedRoot, 50_000, 520 * 1024 * 1024);
try {
  await benchTree('generated tree', tree.root, [
    ['**/*.c', ['-g', '*.c']],
    ['**/file_1*.h', ['-g', 'file_1*.h']],
    ['**', ['-g', '*']],
  ]);
  await benchTree('repository-sized tree (node_modules)', join(import.meta.dir, '..', 'node_modules'), [
    ['**/*.js', ['-g', '*.js']],
    ['**/package.json', ['-g', 'package.json']],
    ['**', ['-g', '*']],
  ]);
} finally {
  tree.remove();
}
