/**
 * `GET /api/settings/tools` throughput and latency at 1 and 64 connections, on SQLite and PostgreSQL,
 * next to a bare `Bun.serve` hello-world measured in the same run (the ceiling of any Bun HTTP server on
 * this machine). Each server runs in its own process; this process is the load generator (fetch over
 * loopback, bounded by request count and time). Prints a table and the ratio to the ceiling.
 *
 * `MANGO_BENCH_SECONDS` (default 3) bounds each measurement; PostgreSQL is the tests' server
 * (`MANGO_TEST_POSTGRES_URL`, or a cluster this run starts and stops), in a database created and dropped
 * by this run.
 */
import { join } from 'node:path';
import { SQL } from 'bun';
import { stopTestPostgres, testPostgresUrl } from '../tests/helpers/test-postgres-server.ts';

const SECONDS = Number(process.env.MANGO_BENCH_SECONDS ?? 3);
const MAX_REQUESTS = 200_000;
const CONNECTIONS = [1, 64];

interface Target {
  label: string;
  url: string;
  token: string;
  child: ReturnType<typeof Bun.spawn>;
}

async function startTarget(label: string, args: string[]): Promise<Target> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, 'settings-api-server.ts'), ...args], {
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const reader = child.stdout.getReader();
  let text = '';
  while (!text.includes('\n')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${label} server exited before it was ready`);
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const [, url, token] = text.trim().split(' ');
  return { label, url: url!, token: token!, child };
}

interface Measurement {
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

async function measure(
  url: string,
  token: string,
  connections: number,
  seconds: number,
): Promise<Measurement> {
  const headers = { authorization: `Bearer ${token}` };
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  const perConnection = Math.ceil(MAX_REQUESTS / connections);
  await Promise.all(
    Array.from({ length: connections }, async () => {
      for (let index = 0; index < perConnection && performance.now() < deadline; index++) {
        const before = performance.now();
        const response = await fetch(url, { headers });
        await response.arrayBuffer();
        if (response.status !== 200) errors++;
        latencies.push(performance.now() - before);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((left, right) => left - right);
  const quantile = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    requests: latencies.length,
    perSecond: latencies.length / elapsed,
    p50: quantile(0.5),
    p99: quantile(0.99),
    errors,
  };
}

const databaseName = `mango_b_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
const adminUrl = await testPostgresUrl();
const admin = new SQL(adminUrl, { max: 1 });
await admin.unsafe(`CREATE DATABASE ${databaseName}`);
const postgresUrl = new URL(adminUrl);
postgresUrl.pathname = `/${databaseName}`;

const targets: Target[] = [];
try {
  targets.push(await startTarget('bare Bun.serve', ['hello']));
  targets.push(await startTarget('mango SQLite', ['sqlite']));
  targets.push(await startTarget('mango PostgreSQL', ['postgres', postgresUrl.toString()]));
  console.log(
    `GET /api/settings/tools, ${SECONDS}s per cell (after a 0.5s warm-up), loopback, fetch keep-alive`,
  );
  const results = new Map<string, Measurement>();
  for (const connections of CONNECTIONS) {
    for (const target of targets) {
      const url = target.label === 'bare Bun.serve' ? `${target.url}/` : `${target.url}/api/settings/tools`;
      await measure(url, target.token, connections, 0.5);
      const result = await measure(url, target.token, connections, SECONDS);
      results.set(`${target.label}@${connections}`, result);
    }
  }
  const rows = [['server', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'non-200', 'req/s vs bare', 'p99 vs bare']];
  for (const connections of CONNECTIONS) {
    const ceiling = results.get(`bare Bun.serve@${connections}`)!;
    for (const target of targets) {
      const result = results.get(`${target.label}@${connections}`)!;
      rows.push([
        target.label,
        String(connections),
        result.perSecond.toFixed(0),
        result.p50.toFixed(2),
        result.p99.toFixed(2),
        String(result.errors),
        `${((result.perSecond / ceiling.perSecond) * 100).toFixed(0)}%`,
        `${(result.p99 / ceiling.p99).toFixed(1)}x`,
      ]);
    }
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) console.log(row.map((cell, column) => cell.padStart(widths[column]!)).join('  '));
} finally {
  for (const target of targets) {
    target.child.kill('SIGTERM');
    await target.child.exited;
  }
  await admin.unsafe(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  await admin.close();
  await stopTestPostgres();
}
