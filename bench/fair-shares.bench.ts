/**
 * Fair shares (user-shares.ts): what one user keeps of the machine while two others attack it.
 *
 * - CPU: a single-threaded `sha256sum` of 200 MB (`head -c 200M /dev/zero | sha256sum`, timed inside
 *   the sandbox) by user C, median of FAIR_BENCH_RUNS (default 5), idle and while users A and B each
 *   run a busy loop on every core; once with the per-user CPU share and once in a sandbox without it
 *   (the scheduler then divides time between processes). Printed as ratios to idle; the goal is at most
 *   2x with the share.
 * - Latency: C's `echo` through the sandbox (the whole call), median of FAIR_BENCH_RUNS, idle, while A
 *   and B hold their process limit with a fork loop, while they run memory hogs past their share in a
 *   loop (each killed by the kernel and started again), and while they run the CPU loops.
 *
 * Every attacking call is ended by aborting it (its sandbox's process group is killed); the users'
 * cgroups are removed at the end. Needs root and cgroup v1 hierarchies; says why and stops otherwise.
 */

import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { BubblewrapSandbox } from '../src/sandbox/bubblewrap-sandbox.ts';
import { createSandboxLayout, createTestSandbox } from '../tests/sandbox/sandbox-host.ts';
import { sharesUnavailable, testUsers } from '../tests/sandbox/user-share-cgroups.ts';

const RUNS = Number(process.env.FAIR_BENCH_RUNS ?? 5);
const CORES = availableParallelism();

const missing = sharesUnavailable(['pids', 'memory', 'cpu']);
if (missing) {
  console.log(`Fair shares cannot be measured here: ${missing}`);
  process.exit(0);
}

const shared = createTestSandbox({ pool: { maxIdle: 0 } });
const unshared = createTestSandbox({ pool: { maxIdle: 0 }, cgroupRoots: { cpu: null } });
const layout = await createSandboxLayout(shared);
const users = testUsers();
const [a, b, c] = [users.id('bench-a'), users.id('bench-b'), users.id('bench-c')] as [string, string, string];
process.on('exit', () => {
  shared.dispose();
  unshared.dispose();
  layout.remove();
  users.remove();
});
const flags = join(layout.alice, `board-${crypto.randomUUID()}`);
mkdirSync(flags);
chmodSync(flags, 0o1777);

function run(sandbox: BubblewrapSandbox, userId: string, command: string, signal?: AbortSignal) {
  return sandbox.run({
    shell: 'bash',
    command,
    cwd: layout.alice,
    reachable: layout.reachable,
    deniedPaths: [],
    deniedEnvVars: [],
    interpreterPath: '/usr/bin/bash',
    userId,
    chatId: undefined,
    timeoutMs: 600_000,
    maxOutputBytes: 4096,
    signal,
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Milliseconds the hash took inside the sandbox. */
async function hashMs(sandbox: BubblewrapSandbox): Promise<number> {
  const result = await run(
    sandbox,
    c,
    's=$(date +%s%N); head -c 200M /dev/zero | sha256sum > /dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 ))',
  );
  if (result.exitCode !== 0) throw new Error(`the hash failed: ${result.stderr}`);
  return Number(result.stdout.trim());
}

async function echoMs(sandbox: BubblewrapSandbox): Promise<number> {
  const startedAt = performance.now();
  const result = await run(sandbox, c, 'echo still here');
  if (result.stdout !== 'still here\n') throw new Error(`the echo failed: ${result.stderr}`);
  return performance.now() - startedAt;
}

async function samples(measure: () => Promise<number>): Promise<number[]> {
  const taken: number[] = [];
  for (let index = 0; index < RUNS; index += 1) taken.push(await measure());
  return taken;
}

type Attack = (flag: string) => string;
const cpuLoops: Attack = (flag) =>
  `for i in $(seq ${CORES}); do (while :; do :; done) & done; touch ${flag}; wait`;
const forkLoops: Attack = (flag) =>
  `perl -e 'while (1) { my $p = fork(); if (!defined $p) { open(my $f, ">", "${flag}"); last } ` +
  "if ($p == 0) { sleep 600; exit 0 } } sleep 600'";
const memoryHogs: Attack = (flag) => `touch ${flag}; while :; do perl -e '$x = "x" x (3 * 1024**3)'; done`;

/** Runs `measure` while A and B run `attack` in `sandbox` (each in `calls` calls at once), then ends them. */
async function underAttack<T>(
  sandbox: BubblewrapSandbox,
  attack: Attack,
  measure: () => Promise<T>,
  calls = 1,
) {
  const stop = new AbortController();
  const marks = [a, b].flatMap((userId) =>
    Array.from({ length: calls }, () => ({ userId, flag: join(flags, `attack-${crypto.randomUUID()}`) })),
  );
  const running = marks.map(({ userId, flag }) => run(sandbox, userId, attack(flag), stop.signal));
  try {
    const deadline = performance.now() + 60_000;
    while (!marks.every(({ flag }) => existsSync(flag))) {
      if (performance.now() > deadline) throw new Error('the attackers did not start');
      await Bun.sleep(20);
    }
    return await measure();
  } finally {
    stop.abort();
    await Promise.all(running);
  }
}

// The machine may be shared with other work that comes and goes: each round takes one sample of every
// subject, one after the other, so a change of load meets all of them alike.
/** Parallel calls of each attacker in the last subjects: a user's calls count once with the share. */
const MANY_CALLS = 4;
const hashSubjects: [string, () => Promise<number>][] = [
  ['idle', () => hashMs(shared)],
  ['A, B one call each, CPU share', () => underAttack(shared, cpuLoops, () => hashMs(shared))],
  ['A, B one call each, no CPU share', () => underAttack(unshared, cpuLoops, () => hashMs(unshared))],
  [
    `A, B ${MANY_CALLS} calls each, CPU share`,
    () => underAttack(shared, cpuLoops, () => hashMs(shared), MANY_CALLS),
  ],
  [
    `A, B ${MANY_CALLS} calls each, no CPU share`,
    () => underAttack(unshared, cpuLoops, () => hashMs(unshared), MANY_CALLS),
  ],
];
await hashMs(shared);
const loadBefore = (await Bun.file('/proc/loadavg').text()).split(' ')[0];
const hashes: number[][] = hashSubjects.map(() => []);
for (let round = 0; round < RUNS; round += 1) {
  for (const [index, [, measure]] of hashSubjects.entries()) hashes[index]?.push(await measure());
}
const hashMedians = hashes.map(median);
const idleHash = hashMedians[0] as number;
const loadAfter = (await Bun.file('/proc/loadavg').text()).split(' ')[0];
console.log(
  `sha256sum of 200 MB by user C, median of ${RUNS} interleaved rounds, while users A and B run ${CORES} busy loops per call (load average ${loadBefore} before, ${loadAfter} after):`,
);
hashSubjects.forEach(([name], index) => {
  const ms = hashMedians[index] as number;
  console.log(
    `  ${name.padEnd(36)}${String(ms).padStart(6)} ms${index === 0 ? '' : `  (${(ms / idleHash).toFixed(2)}x idle)`}`,
  );
});
console.log('  goal: at most 2x idle with the CPU share');

const idleEcho = median(await samples(() => echoMs(shared)));
const echoes: [string, number][] = [];
for (const [name, attack] of [
  ['fork loops to the process limit', forkLoops],
  ['memory hogs past the share', memoryHogs],
  ['CPU loops on every core', cpuLoops],
] as const) {
  echoes.push([name, median(await underAttack(shared, attack, () => samples(() => echoMs(shared))))]);
}
console.log(`\nuser C's echo (the whole call), median of ${RUNS}:`);
console.log(`  idle                                ${idleEcho.toFixed(1)} ms`);
for (const [name, ms] of echoes) {
  console.log(`  ${name.padEnd(36)}${ms.toFixed(1)} ms  (${(ms / idleEcho).toFixed(2)}x idle)`);
}
console.log(
  `FAIR_SHARES_JSON ${JSON.stringify({
    ...Object.fromEntries(
      hashSubjects
        .slice(1)
        .map(([name], index) => [`hash ${name}`, (hashMedians[index + 1] as number) / idleHash]),
    ),
    ...Object.fromEntries(echoes.map(([name, ms]) => [`echo ${name}`, ms / idleEcho])),
  })}`,
);
