/**
 * What read_file costs through the user's file worker next to doing the read in the server: the whole
 * tool (executeTool: settings, the path policy, the read, sha256, the ledger, the numbered window) on
 * a 4 KiB text file and on a 256 KiB one, through a warm worker (file-worker-pool.ts, in a real
 * bubblewrap sandbox as the user's uid) and through the in-process file operations, which is the path
 * of the commit before the worker. Pairs of rounds alternate which side goes first; each round is the
 * median of CALLS sequential calls; the figure is the median over the rounds of each pair's difference
 * and ratio. The last line is `READ_FILE_JSON {...}` for a paired run against another checkout.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileWorkerPool } from '../src/file-worker/file-worker-pool.ts';
import { fileWorkerOperations } from '../src/file-worker/worker-file-operations.ts';
import { createBubblewrapSandbox } from '../src/sandbox/bubblewrap-sandbox.ts';
import { inProcessFileOperations, installFileOperations } from '../src/sandbox/host-file-operations.ts';
import { handToSandboxUser } from '../src/sandbox/sandbox-file-owner.ts';
import { executeTool } from '../src/tools/execution.ts';
import { InMemoryFreshnessLedger } from '../src/tools/freshness-ledger.ts';
import '../src/tools/builtin/register-builtin-tools.ts';
import { testSandboxUsers } from '../tests/helpers/test-sandbox-users.ts';
import { median } from './support/bench-helpers.ts';
import { benchReachable } from './support/bench-reachable.ts';

const PAIRS = Number(process.env.READ_FILE_BENCH_PAIRS ?? 15);
const CALLS = Number(process.env.READ_FILE_BENCH_CALLS ?? 60);

const sandbox = createBubblewrapSandbox({ log: () => {}, users: testSandboxUsers() });
if (!sandbox.status().available) {
  console.log(`read_file bench skipped: ${(sandbox.status() as { reason: string }).reason}`);
  process.exit(0);
}
const workspace = mkdtempSync(join('/var/tmp', 'mango-read-file-bench-'));
chmodSync(workspace, 0o755);
await handToSandboxUser(workspace, 'bench', sandbox);
const line = 'the quick brown fox jumps over the lazy dog, again and again\n';
writeFileSync(join(workspace, 'small.txt'), line.repeat(Math.ceil(4096 / line.length)).slice(0, 4096));
writeFileSync(join(workspace, 'large.txt'), line.repeat(Math.ceil(262_144 / line.length)).slice(0, 262_144));
const pool = createFileWorkerPool({ sandbox: () => sandbox, maxWorkers: 4, idleMs: 600_000 });
process.on('exit', () => {
  pool.dispose();
  sandbox.dispose();
  rmSync(workspace, { recursive: true, force: true });
});
const reachable = benchReachable(workspace);
const ledger = new InMemoryFreshnessLedger();
const worker = fileWorkerOperations(pool);

async function round(side: 'worker' | 'in-process', path: string): Promise<number> {
  const uninstall = installFileOperations(side === 'worker' ? worker : inProcessFileOperations);
  try {
    const times: number[] = [];
    for (let call = 0; call < CALLS; call += 1) {
      const started = performance.now();
      const outcome = await executeTool(
        'read_file',
        { path },
        { userId: 'bench', chatId: 'bench', reachable, ledger },
      );
      times.push(performance.now() - started);
      if (!outcome.ok) throw new Error(`${side}: ${outcome.error.message}`);
    }
    return median(times);
  } finally {
    uninstall();
  }
}

const figures: Record<string, number> = {};
console.log(`read_file, ${PAIRS} pairs of rounds, ${CALLS} sequential calls a round (median of a round)`);
console.log('file       | in-process ms | worker ms | difference ms | ratio   (medians over the pairs)');
for (const [label, path] of [
  ['4 KiB', 'small.txt'],
  ['256 KiB', 'large.txt'],
] as const) {
  // Warm both: the worker started, the code paths compiled.
  await round('worker', path);
  await round('in-process', path);
  const local: number[] = [];
  const remote: number[] = [];
  const differences: number[] = [];
  const ratios: number[] = [];
  for (let pair = 0; pair < PAIRS; pair += 1) {
    const order = pair % 2 === 0 ? (['worker', 'in-process'] as const) : (['in-process', 'worker'] as const);
    const result: Record<string, number> = {};
    for (const side of order) result[side] = await round(side, path);
    const [inProcess, viaWorker] = [result['in-process'] as number, result.worker as number];
    local.push(inProcess);
    remote.push(viaWorker);
    differences.push(viaWorker - inProcess);
    ratios.push(viaWorker / inProcess);
  }
  const key = label === '4 KiB' ? 'small' : 'large';
  figures[`${key}_in_process_ms`] = median(local);
  figures[`${key}_worker_ms`] = median(remote);
  figures[`${key}_difference_ms`] = median(differences);
  figures[`${key}_ratio`] = median(ratios);
  console.log(
    `${label.padEnd(10)} | ${median(local).toFixed(3).padStart(13)} | ${median(remote).toFixed(3).padStart(9)} | ${median(differences).toFixed(3).padStart(13)} | ${median(ratios).toFixed(2)}×`,
  );
}
console.log(`READ_FILE_JSON ${JSON.stringify(figures)}`);
// The warm pool's idle timer would keep the process alive for its 10 minutes; the exit handler cleans up.
process.exit(0);
