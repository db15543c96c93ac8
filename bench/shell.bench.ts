/**
 * Shell tool overhead: one `bash -c true` through runShellCommand (no sandbox), through the bubblewrap
 * sandbox (prlimit, setpriv, bwrap with fresh namespaces and mounts, the wait-status reporter), and
 * through the whole tool in the sandbox (executeTool: settings, cwd resolution and policy, environment
 * allowlist), against a bare Bun.spawn of the same command that reads both pipes, which is what a caller
 * would otherwise write. Prints the mean
 * latency of sequential calls and calls per second at 1, 8 and 64 concurrent calls, with ratios. A
 * detached bare spawn (setsid, as runShellCommand does) separates the cost of the process group.
 * Last, the drain: a command printing DRAIN_BYTES at a 1 KB cap through runShellCommand (which runs
 * one full collection per 32 MB dropped, dropped-output-collector.ts) against a bare spawn that reads
 * and drops the same output, with the RSS growth of each.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ReachableSet } from '../src/tools/access/reachable-set.ts';
import { executeTool } from '../src/tools/execution.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import { buildShellTool } from '../src/tools/shell/build-shell-tool.ts';
import { runShellCommand } from '../src/tools/shell/run-shell-command.ts';
import { createBubblewrapSandbox } from '../src/tools/shell/sandbox/bubblewrap-sandbox.ts';
import { handToSandboxUser } from '../src/tools/shell/sandbox/sandbox-file-owner.ts';

const COMMAND = 'true';
const SEQUENTIAL_CALLS = Number(process.env.SHELL_BENCH_CALLS ?? 280);
const CONCURRENT_CALLS = Number(process.env.SHELL_BENCH_CONCURRENT_CALLS ?? 160);
const cwd = process.cwd();

async function bareSpawn(): Promise<void> {
  const child = Bun.spawn(['bash', '-c', COMMAND], { cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
}

async function shellCommand(): Promise<void> {
  await runShellCommand({ shell: 'bash', command: COMMAND, cwd, timeoutMs: 30_000, maxOutputBytes: 102_400 });
}

const sandbox = createBubblewrapSandbox({ log: () => {} });
const sandboxStatus = sandbox.status();
const workspace = mkdtempSync(join(tmpdir(), 'mango-shell-bench-'));
chmodSync(workspace, 0o755);
await handToSandboxUser(workspace, sandbox);
process.on('exit', () => {
  sandbox.dispose();
  rmSync(workspace, { recursive: true, force: true });
});
const reachable: ReachableSet = {
  workingDirectory: workspace,
  homeDirectory: workspace,
  roots: [{ path: workspace, access: 'read-write' }],
  protectedPaths: [],
};
const bash = Bun.which('bash') ?? '/usr/bin/bash';

async function sandboxed(): Promise<void> {
  const result = await sandbox.run({
    shell: 'bash',
    command: COMMAND,
    cwd: workspace,
    reachable,
    deniedPaths: [],
    deniedEnvVars: [],
    interpreterPath: bash,
    userId: 'bench',
    chatId: undefined,
    timeoutMs: 30_000,
    maxOutputBytes: 102_400,
  });
  if (result.exitCode !== 0) throw new Error(`sandboxed true failed: ${result.stderr}`);
}

const registry = new ToolRegistry();
registry.register(buildShellTool('bash', { sandbox: () => sandbox }));
async function wholeTool(): Promise<void> {
  const outcome = await executeTool(
    'bash',
    { command: COMMAND },
    { userId: 'bench', reachable },
    { enabled: true },
    { registry },
  );
  if (!outcome.ok) throw new Error(outcome.error.message);
}

async function bareDetachedSpawn(): Promise<void> {
  const child = Bun.spawn(['bash', '-c', COMMAND], {
    cwd,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    detached: true,
  });
  await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
}

const subjects: [string, () => Promise<void>][] = [
  ['bare Bun.spawn', bareSpawn],
  ['bare Bun.spawn, detached', bareDetachedSpawn],
  ['runShellCommand, no sandbox', shellCommand],
];
if (sandboxStatus.available) {
  subjects.push(['bubblewrap sandbox', sandboxed], ['bash tool in the sandbox', wholeTool]);
} else {
  console.log(`The sandboxed subjects are left out: ${sandboxStatus.reason}`);
}

/** The machine is shared: subjects alternate within each round, and the median round is reported. */
const ROUNDS = Number(process.env.SHELL_BENCH_ROUNDS ?? 7);

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function meanLatencyMs(run: () => Promise<void>, calls: number): Promise<number> {
  const startedAt = performance.now();
  for (let index = 0; index < calls; index += 1) await run();
  return (performance.now() - startedAt) / calls;
}

async function callsPerSecond(run: () => Promise<void>, concurrency: number, calls: number): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      next += 1;
      await run();
    }
  };
  const startedAt = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  return calls / ((performance.now() - startedAt) / 1000);
}

/** Runs `measure` for every subject in each round, rotating the order, and keeps each subject's median. */
async function interleaved(measure: (run: () => Promise<void>) => Promise<number>): Promise<number[]> {
  const samples: number[][] = subjects.map(() => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let offset = 0; offset < subjects.length; offset += 1) {
      const index = (round + offset) % subjects.length;
      samples[index]?.push(await measure((subjects[index] as [string, () => Promise<void>])[1]));
    }
  }
  return samples.map(median);
}

for (const [, run] of subjects) for (let index = 0; index < 20; index += 1) await run();

const perRound = Math.max(1, Math.round(SEQUENTIAL_CALLS / ROUNDS));
console.log(
  `bash -c ${COMMAND}: ${ROUNDS} rounds of ${perRound} sequential calls per subject, interleaved; median round`,
);
const latencies = await interleaved((run) => meanLatencyMs(run, perRound));
const bareLatency = latencies[0] as number;
subjects.forEach(([name], index) => {
  const latency = latencies[index] as number;
  const overhead = latency - bareLatency;
  console.log(
    `  ${name.padEnd(30)} ${latency.toFixed(3)} ms/call` +
      (index === 0
        ? ''
        : `  overhead ${overhead >= 0 ? '+' : ''}${overhead.toFixed(3)} ms (${(latency / bareLatency).toFixed(2)}x bare)`),
  );
});

const levels = [1, 8, 64];
const rates: number[][] = [];
for (const concurrency of levels) {
  rates.push(await interleaved((run) => callsPerSecond(run, concurrency, CONCURRENT_CALLS)));
}
console.log(`\ncalls per second (${CONCURRENT_CALLS} calls per run, median of ${ROUNDS} rounds)`);
console.log(`  ${'concurrency'.padEnd(30)} ${levels.map((value) => String(value).padStart(18)).join('')}`);
subjects.forEach(([name], index) => {
  const cells = levels.map((_, level) => {
    const rate = rates[level]?.[index] as number;
    const bare = rates[level]?.[0] as number;
    return `${rate.toFixed(0)}/s${index === 0 ? '' : ` (${(rate / bare).toFixed(2)}x)`}`.padStart(18);
  });
  console.log(`  ${name.padEnd(30)} ${cells.join('')}`);
});

const DRAIN_BYTES = Number(process.env.SHELL_BENCH_DRAIN_BYTES ?? 512 * 1024 * 1024);
const DRAIN_ROUNDS = Number(process.env.SHELL_BENCH_DRAIN_ROUNDS ?? 3);
const drainCommand = `head -c ${DRAIN_BYTES} /dev/zero`;

async function bareDrain(): Promise<void> {
  const child = Bun.spawn(['bash', '-c', drainCommand], {
    cwd,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const reader = child.stdout.getReader();
  for (;;) if ((await reader.read()).done) break;
  await child.exited;
}

async function cappedDrain(): Promise<void> {
  const result = await runShellCommand({
    shell: 'bash',
    command: drainCommand,
    cwd,
    timeoutMs: 120_000,
    maxOutputBytes: 1024,
  });
  if (!result.truncated) throw new Error('the drain was not truncated');
}

const drainSubjects: [string, () => Promise<void>][] = [
  ['bare Bun.spawn, read and drop', bareDrain],
  ['runShellCommand, 1 KB cap', cappedDrain],
];
const drainMs: number[][] = drainSubjects.map(() => []);
const drainGrowth: number[] = drainSubjects.map(() => 0);
for (let round = 0; round < DRAIN_ROUNDS; round += 1) {
  for (let offset = 0; offset < drainSubjects.length; offset += 1) {
    const index = (round + offset) % drainSubjects.length;
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 10);
    const startedAt = performance.now();
    await (drainSubjects[index] as [string, () => Promise<void>])[1]();
    drainMs[index]?.push(performance.now() - startedAt);
    clearInterval(sampler);
    drainGrowth[index] = Math.max(drainGrowth[index] as number, peak - baseline);
  }
}
console.log(`\ndraining ${DRAIN_BYTES / 2 ** 20} MiB (median of ${DRAIN_ROUNDS} rounds; max RSS growth)`);
const bareDrainMs = median(drainMs[0] as number[]);
drainSubjects.forEach(([name], index) => {
  const milliseconds = median(drainMs[index] as number[]);
  const rate = DRAIN_BYTES / 2 ** 20 / (milliseconds / 1000);
  const ratio = index === 0 ? '' : ` (${(milliseconds / bareDrainMs).toFixed(2)}x bare time)`;
  const growth = ((drainGrowth[index] as number) / 2 ** 20).toFixed(1);
  console.log(
    `  ${name.padEnd(30)} ${milliseconds.toFixed(0)} ms, ${rate.toFixed(0)} MiB/s, +${growth} MiB${ratio}`,
  );
});
