/**
 * Shell tool overhead: one `bash -c true` through runShellCommand (no sandbox), through the bubblewrap
 * sandbox built at the call (cold: prlimit, setpriv, bwrap with fresh namespaces and mounts, the
 * waiter), through a sandbox the warm pool built ahead (warm: the call only hands over its command;
 * the pool is given time to rebuild between calls, outside the timing, as the time a model takes
 * between two calls gives it), and through the whole tool in a warm sandbox (executeTool: settings,
 * cwd resolution and policy, environment allowlist), against a bare Bun.spawn of the same command that
 * reads both pipes, which is what a caller would otherwise write. Prints the median latency of single
 * sequential calls with its overhead over the bare spawn, and calls per second at 1, 8 and 64
 * concurrent calls (back to back: the pool cannot rebuild ahead then), with ratios. A detached bare
 * spawn (setsid, as runShellCommand does) separates the cost of the process group.
 * Last, the drain: a command printing DRAIN_BYTES at a 1 KB cap through runShellCommand (which runs
 * one full collection per 32 MB dropped, dropped-output-collector.ts) against a bare spawn that reads
 * and drops the same output, with the RSS growth of each.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BubblewrapSandbox, createBubblewrapSandbox } from '../src/sandbox/bubblewrap-sandbox.ts';
import { handToSandboxUser } from '../src/sandbox/sandbox-file-owner.ts';
import type { ReachableSet } from '../src/tools/access/reachable-set.ts';
import { buildShellTool } from '../src/tools/builtin/build-shell-tool.ts';
import { executeTool } from '../src/tools/execution.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import { runShellCommand } from '../src/tools/shell/run-shell-command.ts';
import { testSandboxUsers } from '../tests/helpers/test-sandbox-users.ts';

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

const cold = createBubblewrapSandbox({ log: () => {}, users: testSandboxUsers(), pool: { maxIdle: 0 } });
const warm = createBubblewrapSandbox({ log: () => {}, users: testSandboxUsers(), pool: { maxIdle: 4 } });
const sandboxStatus = cold.status();
const workspace = mkdtempSync(join(tmpdir(), 'mango-shell-bench-'));
chmodSync(workspace, 0o755);
await handToSandboxUser(workspace, 'bench', cold);
process.on('exit', () => {
  cold.dispose();
  warm.dispose();
  rmSync(workspace, { recursive: true, force: true });
});
const reachable: ReachableSet = {
  workingDirectory: workspace,
  homeDirectory: workspace,
  roots: [{ path: workspace, access: 'read-write' }],
  protectedPaths: [],
};
const bash = Bun.which('bash') ?? '/usr/bin/bash';

function sandboxed(sandbox: BubblewrapSandbox): () => Promise<void> {
  return async () => {
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
  };
}

const registry = new ToolRegistry();
registry.register(buildShellTool('bash', { sandbox: () => warm }));
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

interface Subject {
  name: string;
  run: () => Promise<void>;
  /** Untimed, before each timed sequential call (the warm pool rebuilding between calls). */
  between?: () => Promise<void>;
  /** Left out of the back-to-back throughput table (its premise, time between calls, is gone). */
  sequentialOnly?: boolean;
}

const subjects: Subject[] = [
  { name: 'bare Bun.spawn', run: bareSpawn },
  { name: 'bare Bun.spawn, detached', run: bareDetachedSpawn },
  { name: 'runShellCommand, no sandbox', run: shellCommand },
];
if (sandboxStatus.available) {
  const settle = () => warm.poolSettled();
  subjects.push(
    { name: 'sandbox, cold (built at call)', run: sandboxed(cold) },
    { name: 'sandbox, warm (pre-built)', run: sandboxed(warm), between: settle, sequentialOnly: true },
    { name: 'bash tool, warm sandbox', run: wholeTool, between: settle, sequentialOnly: true },
    { name: 'sandbox, pool on, back to back', run: sandboxed(warm) },
  );
} else {
  console.log(`The sandboxed subjects are left out: ${sandboxStatus.reason}`);
}

/** The machine is shared: subjects alternate within each round, and the median is reported. */
const ROUNDS = Number(process.env.SHELL_BENCH_ROUNDS ?? 7);

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Durations of `calls` single sequential calls, each timed alone. */
async function callDurations(subject: Subject, calls: number): Promise<number[]> {
  const durations: number[] = [];
  for (let index = 0; index < calls; index += 1) {
    await subject.between?.();
    const startedAt = performance.now();
    await subject.run();
    durations.push(performance.now() - startedAt);
  }
  return durations;
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

/** Runs `measure` for every subject in each round, rotating the order; returns each one's samples. */
async function interleaved<T>(chosen: Subject[], measure: (subject: Subject) => Promise<T>): Promise<T[][]> {
  const samples: T[][] = chosen.map(() => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let offset = 0; offset < chosen.length; offset += 1) {
      const index = (round + offset) % chosen.length;
      samples[index]?.push(await measure(chosen[index] as Subject));
    }
  }
  return samples;
}

for (const subject of subjects) for (let index = 0; index < 20; index += 1) await subject.run();

const perRound = Math.max(1, Math.round(SEQUENTIAL_CALLS / ROUNDS));
console.log(
  `bash -c ${COMMAND}: ${ROUNDS} rounds of ${perRound} sequential calls per subject, interleaved; median of all calls`,
);
const durations = (await interleaved(subjects, (subject) => callDurations(subject, perRound))).map((rounds) =>
  rounds.flat(),
);
const bareLatency = median(durations[0] as number[]);
subjects.forEach(({ name }, index) => {
  const all = durations[index] as number[];
  const latency = median(all);
  const overhead = latency - bareLatency;
  const p90 = [...all].sort((left, right) => left - right)[Math.floor(all.length * 0.9)] as number;
  console.log(
    `  ${name.padEnd(32)} ${latency.toFixed(3)} ms/call (p90 ${p90.toFixed(1)})` +
      (index === 0
        ? ''
        : `  overhead ${overhead >= 0 ? '+' : ''}${overhead.toFixed(3)} ms (${(latency / bareLatency).toFixed(2)}x bare)`),
  );
});

// For a paired run against another checkout (bench/paired.ts): each subject's overhead over the bare spawn.
console.log(
  `SHELL_JSON ${JSON.stringify(
    Object.fromEntries(
      subjects
        .slice(1)
        .map(({ name }, index) => [name, median(durations[index + 1] as number[]) - bareLatency]),
    ),
  )}`,
);
// SHELL_BENCH_LATENCY_ONLY=1 stops here: the paired run needs only the latencies.
if (process.env.SHELL_BENCH_LATENCY_ONLY === '1') process.exit(0);

const levels = [1, 8, 64];
const throughputSubjects = subjects.filter((subject) => !subject.sequentialOnly);
const rates: number[][] = [];
for (const concurrency of levels) {
  const samples = await interleaved(throughputSubjects, (subject) =>
    callsPerSecond(subject.run, concurrency, CONCURRENT_CALLS),
  );
  rates.push(samples.map(median));
}
console.log(
  `\ncalls per second (${CONCURRENT_CALLS} calls per run, back to back, median of ${ROUNDS} rounds)`,
);
console.log(`  ${'concurrency'.padEnd(32)} ${levels.map((value) => String(value).padStart(18)).join('')}`);
throughputSubjects.forEach(({ name }, index) => {
  const cells = levels.map((_, level) => {
    const rate = rates[level]?.[index] as number;
    const bare = rates[level]?.[0] as number;
    return `${rate.toFixed(0)}/s${index === 0 ? '' : ` (${(rate / bare).toFixed(2)}x)`}`.padStart(18);
  });
  console.log(`  ${name.padEnd(32)} ${cells.join('')}`);
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
