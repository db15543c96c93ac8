/**
 * The warm pool: sandboxes built ahead of the call that will most likely need them, so a call only
 * hands over its command instead of waiting for bubblewrap to build namespaces and mounts.
 *
 * Guarantees:
 * - A pooled sandbox is still one sandbox for one call: it is taken out of the pool when a call takes
 *   it and never comes back.
 * - It is handed only to a call with exactly its key: the complete argument vector that built it
 *   (limits, uid, namespaces, every mount and cover, the working directory) plus the identity
 *   (device and inode) of every host path it binds or covers, as the call sees them when it starts.
 *   A call whose plan differs in anything, or for which a workspace, an `/etc` file or a denied path
 *   was replaced since the sandbox was built, gets a sandbox built for it instead. The command and
 *   its environment are not part of a pooled sandbox at all: they reach it when the call starts.
 * - Bounded: at most `maxIdle` sandboxes wait (built or being built), one per key; preparing past the
 *   bound first discards the oldest of another key. Each waits at most `idleMs`, then is killed.
 * - Pooled sandboxes die with the server (launched-sandbox.ts) and with `dispose()`.
 */
import { lstatSync } from 'node:fs';
import type { LaunchedSandbox } from './launched-sandbox.ts';

export interface SandboxPoolOptions {
  /** Sandboxes that may wait at once (0: no pool). */
  maxIdle: number;
  /** How long a sandbox may wait for its call before it is killed. */
  idleMs: number;
  launch(argv: readonly string[], cwd: string): LaunchedSandbox;
}

export interface SandboxPool {
  /** The waiting sandbox of `key`, taken out of the pool, or undefined. */
  take(key: string): LaunchedSandbox | undefined;
  /** Builds a sandbox for the next call of `key` unless one waits already. */
  prepare(key: string, argv: readonly string[], cwd: string): void;
  /** How many sandboxes wait, per key (for tests and the benchmark). */
  waiting(): Map<string, number>;
  /** Resolves once every waiting sandbox is built (or failed); for tests and the benchmark. */
  settled(): Promise<void>;
  dispose(): void;
}

const BIND_OPTIONS = new Set([
  '--bind',
  '--ro-bind',
  '--bind-try',
  '--ro-bind-try',
  '--dev-bind',
  '--dev-bind-try',
]);

function identityOf(path: string): string {
  try {
    const stats = lstatSync(path);
    return `${stats.dev}:${stats.ino}`;
  } catch {
    return '-';
  }
}

/** The pool key of a sandbox built from `argv` now (see the module header). */
export function sandboxKey(argv: readonly string[]): string {
  const paths = new Set<string>();
  argv.forEach((argument, index) => {
    if (!BIND_OPTIONS.has(argument)) return;
    const source = argv[index + 1];
    const destination = argv[index + 2];
    if (source !== undefined) paths.add(source);
    if (destination !== undefined) paths.add(destination);
  });
  const identities = [...paths].map((path) => `${path}=${identityOf(path)}`);
  return JSON.stringify([argv, identities]);
}

interface Waiting {
  key: string;
  sandbox: LaunchedSandbox;
  timer: ReturnType<typeof setTimeout>;
}

export function createSandboxPool(options: SandboxPoolOptions): SandboxPool {
  const waiting: Waiting[] = [];
  let disposed = false;

  const remove = (entry: Waiting): boolean => {
    const index = waiting.indexOf(entry);
    if (index === -1) return false;
    waiting.splice(index, 1);
    clearTimeout(entry.timer);
    return true;
  };
  const discard = (entry: Waiting) => {
    if (remove(entry)) entry.sandbox.discard();
  };

  return {
    take(key: string): LaunchedSandbox | undefined {
      const entry = waiting.find((candidate) => candidate.key === key);
      if (!entry) return undefined;
      remove(entry);
      return entry.sandbox;
    },
    prepare(key: string, argv: readonly string[], cwd: string): void {
      if (disposed || options.maxIdle <= 0) return;
      if (waiting.some((entry) => entry.key === key)) return;
      while (waiting.length >= options.maxIdle) discard(waiting[0] as Waiting);
      let sandbox: LaunchedSandbox;
      try {
        sandbox = options.launch(argv, cwd);
      } catch {
        // Nothing to prepare: the call that needs it builds its own and reports the failure.
        return;
      }
      const entry: Waiting = { key, sandbox, timer: setTimeout(() => discard(entry), options.idleMs) };
      entry.timer.unref?.();
      waiting.push(entry);
      // A sandbox that ends while it waits (it failed to build, or was killed) leaves the pool.
      void sandbox.child.exited.then(() => remove(entry));
    },
    waiting(): Map<string, number> {
      const counts = new Map<string, number>();
      for (const entry of waiting) counts.set(entry.key, (counts.get(entry.key) ?? 0) + 1);
      return counts;
    },
    async settled(): Promise<void> {
      await Promise.all(waiting.map((entry) => entry.sandbox.ready(options.idleMs)));
    },
    dispose(): void {
      disposed = true;
      for (const entry of [...waiting]) discard(entry);
    },
  };
}
