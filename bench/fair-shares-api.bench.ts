/**
 * Fair shares through the public HTTP API (user-shares.ts behind a real server): what a third tenant
 * gets from the server while two others attack it. A real `startServer` on loopback over SQLite, with
 * the real sandbox (tests/helpers/tenant-server.ts, `MANGO_SANDBOX_USER_MEMORY` 128 MiB); every tenant
 * acts only through turns.
 *
 * Figures: the p50 and p95 of tenant C's `echo` turn (chat created, turn streamed to its end) and of
 * `GET /api/health`, FAIR_API_BENCH_RUNS samples each (default 20), idle and while tenants A and B
 * each run, in one turn each: fork loops holding their process limit, memory hogs past their share in
 * a loop (each killed by the kernel and started again), and a busy loop on every core. Printed as
 * milliseconds and as ratios to idle; goals: echo p95 300 ms, health p95 100 ms (reported, not
 * asserted). Every attacking turn is ended by cancelling it through the API; the tenants' cgroups are
 * removed at the end. Needs root and cgroup v1 hierarchies; says why and stops otherwise. The server's
 * `shell_command` log lines are printed along (pipe through `grep -v shell_command` to hide them).
 */

import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { startTenantServer, type Tenant } from '../tests/helpers/tenant-server.ts';
import { removeUserCgroups, sharesUnavailable } from '../tests/sandbox/user-share-cgroups.ts';

const RUNS = Number(process.env.FAIR_API_BENCH_RUNS ?? 20);
const CORES = availableParallelism();
const GOALS = { echoP95Ms: 300, healthP95Ms: 100 };

const missing = sharesUnavailable(['pids', 'memory', 'cpu']);
if (missing) {
  console.log(`Fair shares through the API cannot be measured here: ${missing}`);
  process.exit(0);
}

const tenants = await startTenantServer('sqlite', {
  env: { MANGO_SANDBOX_USER_MEMORY: String(128 * 1024 ** 2) },
});
const [a, b, c] = (await Promise.all(
  ['bench-a', 'bench-b', 'bench-c'].map((name) => tenants.addTenant(name)),
)) as [Tenant, Tenant, Tenant];
try {
  await main();
} finally {
  await tenants.stop();
  removeUserCgroups([a.id, b.id, c.id]);
}

async function main() {
  const echoMs = async () => {
    const startedAt = performance.now();
    const outcome = await c.bash('echo still here');
    if (outcome.stdout !== 'still here\n') throw new Error(`the echo failed: ${JSON.stringify(outcome)}`);
    return performance.now() - startedAt;
  };
  const healthMs = async () => {
    const startedAt = performance.now();
    const response = await fetch(`${tenants.server.url}/api/health`);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`health answered ${response.status}`);
    return performance.now() - startedAt;
  };

  type Attack = (flag: string) => string;
  const forkLoops: Attack = (flag) =>
    `perl -e 'while (1) { my $p = fork(); if (!defined $p) { open(my $f, ">", "${flag}"); last } ` +
    "if ($p == 0) { sleep 600; exit 0 } } sleep 600'";
  const memoryHogs: Attack = (flag) => `touch ${flag}; while :; do perl -e '$x = "x" x (1024**3)'; done`;
  const cpuLoops: Attack = (flag) =>
    `for i in $(seq ${CORES}); do (while :; do :; done) & done; touch ${flag}; wait`;

  /** Samples of both figures while A and B each run `attack` in a turn, then cancels those turns. */
  const underAttack = async (attack: Attack | undefined) => {
    const flag = `attack-${crypto.randomUUID()}.flag`;
    const turns = attack
      ? await Promise.all(
          [a, b].map(async (tenant) => ({ tenant, turn: await tenant.startBash(attack(flag)) })),
        )
      : [];
    try {
      const deadline = performance.now() + 60_000;
      while (!turns.every(({ tenant }) => existsSync(join(tenant.workspace, flag)))) {
        if (performance.now() > deadline) throw new Error('the attackers did not start');
        await Bun.sleep(20);
      }
      const echoes: number[] = [];
      const healths: number[] = [];
      for (let index = 0; index < RUNS; index += 1) {
        echoes.push(await echoMs());
        healths.push(await healthMs());
      }
      return { echo: percentiles(echoes), health: percentiles(healths) };
    } finally {
      for (const { tenant, turn } of turns) await tenant.api('POST', `/api/chats/${turn.chatId}/cancel`);
      await Promise.all(turns.map(({ turn }) => turn.events));
    }
  };

  await echoMs(); // The first call builds the tenant's cgroups and the first sandbox.
  const loadBefore = (await Bun.file('/proc/loadavg').text()).split(' ')[0];
  const subjects: [string, Attack | undefined][] = [
    ['idle', undefined],
    ['fork loops to the process limit', forkLoops],
    ['memory hogs past the share', memoryHogs],
    [`CPU loops on every core (${CORES})`, cpuLoops],
  ];
  const figures: [string, Figures][] = [];
  for (const [name, attack] of subjects) figures.push([name, await underAttack(attack)]);
  const loadAfter = (await Bun.file('/proc/loadavg').text()).split(' ')[0];

  const idle = (figures[0] as [string, Figures])[1];
  const ratio = (ms: number, idleMs: number) => (ms / idleMs).toFixed(2);
  console.log(
    `tenant C through the HTTP API (SQLite), ${RUNS} samples per figure, while tenants A and B each attack in one turn (load average ${loadBefore} before, ${loadAfter} after):`,
  );
  console.log(`  ${''.padEnd(36)}${'echo turn p50 / p95'.padEnd(36)}GET /api/health p50 / p95`);
  for (const [name, { echo, health }] of figures) {
    const echoText = `${echo.p50.toFixed(1)} / ${echo.p95.toFixed(1)} ms`;
    const healthText = `${health.p50.toFixed(1)} / ${health.p95.toFixed(1)} ms`;
    const ratios =
      name === 'idle'
        ? ['', '']
        : [
            ` (${ratio(echo.p50, idle.echo.p50)}x / ${ratio(echo.p95, idle.echo.p95)}x)`,
            ` (${ratio(health.p50, idle.health.p50)}x / ${ratio(health.p95, idle.health.p95)}x)`,
          ];
    console.log(`  ${name.padEnd(36)}${(echoText + ratios[0]).padEnd(36)}${healthText}${ratios[1]}`);
  }
  console.log(`  goals: echo p95 at most ${GOALS.echoP95Ms} ms, health p95 at most ${GOALS.healthP95Ms} ms`);
  console.log(
    `FAIR_SHARES_API_JSON ${JSON.stringify({
      'idle echo p50 ms': idle.echo.p50,
      'idle echo p95 ms': idle.echo.p95,
      'idle health p50 ms': idle.health.p50,
      'idle health p95 ms': idle.health.p95,
      ...Object.fromEntries(
        figures.slice(1).flatMap(([name, { echo, health }]) => [
          [`echo p50 ${name}`, echo.p50 / idle.echo.p50],
          [`echo p95 ${name}`, echo.p95 / idle.echo.p95],
          [`health p50 ${name}`, health.p50 / idle.health.p50],
          [`health p95 ${name}`, health.p95 / idle.health.p95],
          [`echo p95 ms ${name}`, echo.p95],
          [`health p95 ms ${name}`, health.p95],
        ]),
      ),
    })}`,
  );
}

interface Figures {
  echo: { p50: number; p95: number };
  health: { p50: number; p95: number };
}

/** The nearest-rank p50 and p95 of `values`. */
function percentiles(values: number[]): { p50: number; p95: number } {
  const sorted = [...values].sort((left, right) => left - right);
  const at = (fraction: number) => sorted[Math.max(0, Math.ceil(fraction * sorted.length) - 1)] as number;
  return { p50: at(0.5), p95: at(0.95) };
}
