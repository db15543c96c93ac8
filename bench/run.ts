/**
 * `npm run bench`: runs every `bench/*.bench.ts` in its own Bun process, one after another (so one
 * benchmark's load does not skew the next), or only those whose file name contains an argument:
 * `npm run bench -- grep shell`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

const directory = import.meta.dir;
const filters = process.argv.slice(2);
const files = readdirSync(directory)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => filters.length === 0 || filters.some((filter) => name.includes(filter)))
  .sort();

if (files.length === 0) {
  console.log(filters.length > 0 ? `No benchmark matches ${filters.join(', ')}.` : 'No benchmarks yet.');
}
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const child = Bun.spawn([process.execPath, join(directory, file)], {
    stdout: 'inherit',
    stderr: 'inherit',
  });
  if ((await child.exited) !== 0) {
    failed += 1;
    console.log(`${file} failed (exit ${child.exitCode}).`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
