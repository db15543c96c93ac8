/**
 * Shared by the filesystem benchmarks: installing the comparison tools (Debian's ripgrep and fd-find),
 * generating a large synthetic source tree, timing commands, and printing ratios.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Makes sure `binary` is on PATH, installing `aptPackage` with apt-get when it is not. */
export function ensureTool(binary: string, aptPackage: string): string {
  const found = Bun.which(binary);
  if (found) return found;
  console.log(`installing ${aptPackage} (apt-get) for the comparison…`);
  let install = Bun.spawnSync(['apt-get', 'install', '-y', aptPackage], { stdout: 'ignore', stderr: 'pipe' });
  if (install.exitCode !== 0) {
    Bun.spawnSync(['apt-get', 'update'], { stdout: 'ignore', stderr: 'ignore' });
    install = Bun.spawnSync(['apt-get', 'install', '-y', aptPackage], { stdout: 'ignore', stderr: 'pipe' });
  }
  const installed = Bun.which(binary);
  if (!installed) throw new Error(`could not install ${aptPackage}: ${install.stderr.toString()}`);
  return installed;
}

/** A small deterministic PRNG so the tree is the same on every run. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const WORDS = [
  'node',
  'buffer',
  'count',
  'index',
  'value',
  'result',
  'error',
  'state',
  'handle',
  'config',
  'parse',
  'render',
  'stream',
  'token',
  'cache',
  'queue',
  'worker',
  'thread',
  'socket',
  'packet',
  'frame',
  'layer',
];

/** One synthetic C-like source file of about `targetBytes`. */
function sourceFile(random: () => number, targetBytes: number, fileIndex: number): string {
  const pick = () => WORDS[Math.floor(random() * WORDS.length)]!;
  const lines: string[] = [`/* generated file ${fileIndex} */`, '#include <stdio.h>', ''];
  let size = 0;
  let functionIndex = 0;
  while (size < targetBytes) {
    const name = `${pick()}_${pick()}_${functionIndex++}`;
    const block = [
      `static int ${name}(${random() < 0.02 ? `struct ${pick()}_node *` : 'int '}${pick()}, int ${pick()}) {`,
      random() < 0.02
        ? `  int ${pick()} = ${Math.floor(random() * 10000)};`
        : `  int ${pick()} = ${pick()}_${pick()}(${pick()});`,
      `  if (${pick()} > ${pick()}) return ${pick()}_${pick()}(${pick()});`,
      `  // ${random() < 0.01 ? 'ERROR: ' : random() < 0.01 ? 'Error ' : ''}${pick()} ${pick()} ${pick()} ${pick()}`,
      `  for (int i = ${pick()}; i < ${pick()}; i++) { ${pick()} += i * ${pick()}; }`,
      `  return ${pick()};`,
      '}',
      '',
    ];
    if (random() < 0.002) block.splice(2, 0, '  mango_sentinel_token(); /* rare literal */');
    const text = block.join('\n');
    lines.push(text);
    size += text.length + 1;
  }
  return lines.join('\n');
}

export interface GeneratedTree {
  root: string;
  files: number;
  bytes: number;
  remove(): void;
}

/**
 * Generates `files` files of about `totalBytes` in all under `root` (100 files per directory, two
 * directory levels). Deterministic.
 */
export function generateTree(root: string, files: number, totalBytes: number): GeneratedTree {
  rmSync(root, { recursive: true, force: true });
  const random = createRandom(42);
  const perFile = Math.ceil(totalBytes / files);
  let bytes = 0;
  for (let index = 0; index < files; index += 1) {
    const directory = join(
      root,
      `module_${Math.floor(index / 1000)}`,
      `part_${Math.floor(index / 100) % 10}`,
    );
    if (index % 100 === 0) mkdirSync(directory, { recursive: true });
    const size = Math.floor(perFile * (0.5 + random()));
    const text = sourceFile(random, size, index);
    writeFileSync(join(directory, `file_${index}.${index % 7 === 0 ? 'h' : 'c'}`), text);
    bytes += text.length;
  }
  return { root, files, bytes, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** Wall time of `run` in ms: median of `repeats` runs after one warm-up. */
export async function medianMs(run: () => unknown | Promise<unknown>, repeats = 3): Promise<number> {
  await run();
  const times: number[] = [];
  for (let index = 0; index < repeats; index += 1) {
    const began = performance.now();
    await run();
    times.push(performance.now() - began);
  }
  times.sort((left, right) => left - right);
  return times[Math.floor(times.length / 2)]!;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Runs a command and returns its stdout (exit codes 0 and 1, "no match", are fine). */
export function runCommand(argv: string[], cwd?: string): string {
  const child = Bun.spawnSync(argv, { cwd, stdout: 'pipe', stderr: 'pipe', maxBuffer: 1 << 30 });
  if (child.exitCode !== 0 && child.exitCode !== 1) {
    throw new Error(`${argv.join(' ')} failed (${child.exitCode}): ${child.stderr.toString().slice(0, 500)}`);
  }
  return child.stdout.toString();
}

export function formatRatio(ours: number, theirs: number): string {
  return `${(ours / theirs).toFixed(2)}×`;
}
