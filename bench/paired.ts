/**
 * A paired run of one benchmark against another checkout (say, the commit before a change):
 * `bun bench/paired.ts OTHER_CHECKOUT NAME [RUNS]` runs `bench/NAME.bench.ts` of this checkout and of
 * OTHER_CHECKOUT alternately, RUNS times each (default 5), on the same machine at the same time, and
 * prints for every figure of the benchmark's `…_JSON {...}` line the median over the runs of each side,
 * with the difference and the ratio. The other checkout runs this checkout's copy of the benchmark
 * file when it has none (so a new benchmark can measure an old commit), with its own `src/`.
 */
import { copyFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const [otherArgument, name, runsArgument] = process.argv.slice(2);
if (otherArgument === undefined || name === undefined) {
  console.error('Usage: bun bench/paired.ts OTHER_CHECKOUT NAME [RUNS]');
  process.exit(2);
}
const runs = Number(runsArgument ?? 5);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`RUNS must be a whole number of at least 1, got ${JSON.stringify(runsArgument)}.`);
  process.exit(2);
}
const here = resolve(import.meta.dir, '..');
const other = resolve(otherArgument);
const file = `${name}.bench.ts`;
if (!existsSync(join(here, 'bench', file))) {
  console.error(`No benchmark bench/${file} here.`);
  process.exit(2);
}
if (!existsSync(join(other, 'bench', file)))
  copyFileSync(join(here, 'bench', file), join(other, 'bench', file));

/** The figures of one run: every `…_JSON {…}` line's numbers, by key. */
async function runOnce(checkout: string): Promise<Record<string, number>> {
  const child = Bun.spawn([process.execPath, join(checkout, 'bench', file)], {
    cwd: checkout,
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const output = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`${checkout}: bench/${file} failed:\n${output}`);
  const figures: Record<string, number> = {};
  for (const line of output.split('\n')) {
    const match = /^[A-Z_]+_JSON (\{.*\})$/.exec(line);
    if (match?.[1] === undefined) continue;
    for (const [key, value] of Object.entries(JSON.parse(match[1]) as Record<string, unknown>)) {
      if (typeof value === 'number') figures[key] = value;
    }
  }
  if (Object.keys(figures).length === 0) throw new Error(`${checkout}: bench/${file} printed no _JSON line`);
  return figures;
}

const sides = { here: [] as Record<string, number>[], other: [] as Record<string, number>[] };
for (let run = 0; run < runs; run += 1) {
  // Alternate which side goes first, so neither always runs on a machine the other just warmed.
  const order = run % 2 === 0 ? (['here', 'other'] as const) : (['other', 'here'] as const);
  for (const side of order) sides[side].push(await runOnce(side === 'here' ? here : other));
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
console.log(`bench/${file}: ${runs} runs per side, alternating; medians (this checkout vs ${other})`);
for (const key of Object.keys(sides.here[0] ?? {})) {
  const mine = median(sides.here.map((figures) => figures[key] ?? Number.NaN));
  const theirs = median(sides.other.map((figures) => figures[key] ?? Number.NaN));
  console.log(
    `  ${key.padEnd(24)} ${mine.toFixed(3)} vs ${theirs.toFixed(3)}  (${(mine - theirs >= 0 ? '+' : '') + (mine - theirs).toFixed(3)}, ${(mine / theirs).toFixed(2)}×)`,
  );
}
