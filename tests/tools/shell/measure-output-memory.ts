/**
 * Child-process probe for the "2 GB of output keeps memory flat" test: runs in a fresh Bun process so
 * the RSS it reports is not disturbed by whatever other test files left on the test runner's heap.
 * Usage: bun measure-output-memory.ts CWD BYTES — prints one JSON line.
 */
import { runShellCommand } from '../../../src/tools/shell/run-shell-command.ts';

const [cwd = '/tmp', bytesText = '0'] = process.argv.slice(2);
const base = { shell: 'bash' as const, cwd, timeoutMs: 120_000, maxOutputBytes: 1024 };
// Warm the reading path first, as a running server has: the first streamed megabytes grow the heap
// once (GC headroom, whatever the output size); the bound is on growth caused by the big output.
await runShellCommand({ ...base, command: 'head -c 10000000 /dev/zero' });
const baseline = process.memoryUsage().rss;
let peak = baseline;
const sample = () => {
  peak = Math.max(peak, process.memoryUsage().rss);
};
const sampler = setInterval(sample, 10); // fixture: the probe's memory sampler
const result = await runShellCommand({
  ...base,
  command: `printf 'start'; head -c ${Number(bytesText)} /dev/zero; echo tail >&2`,
});
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
console.log(
  JSON.stringify({
    growthBytes: peak - baseline,
    truncated: result.truncated,
    termination: result.termination.kind,
    stdout: result.stdout,
    stderr: result.stderr,
  }),
);
