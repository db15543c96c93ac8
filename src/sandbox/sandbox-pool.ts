/**
 * The warm pool: sandboxes built ahead of the call that will most likely need them, so a call only
 * hands over its command instead of waiting for bubblewrap to build namespaces and mounts.
 *
 * Guarantees:
 * - A pooled sandbox is still one sandbox for one call: it is taken out of the pool when a call takes
 *   it and never comes back.
 * - It is handed only to a call with exactly its key: the complete plan that built it (limits, uid,
 *   namespaces, every mount and cover with its source path, the working directory). The command and
 *   its environment are not part of a pooled sandbox at all: they reach it when the call starts.
 * - The key names paths, not objects: the objects are checked when the sandbox is handed over. Its
 *   mounts were opened by object when it was built (mount-sources.ts), and the caller reopens each
 *   source then and compares device and inode (`mountSourcesUnchanged`); a workspace, a grant or a
 *   cover replaced since makes the caller discard it and build a sandbox for the call instead.
 * - Bounded: at most `maxIdle` sandboxes wait (built or being built), one per key; preparing past the
 *   bound first discards the oldest of another key. Each waits at most `idleMs`, then is killed.
 * - Pooled sandboxes die with the server (launched-sandbox.ts) and with `dispose()`.
 */
import { describePlan, type PlanArgument } from './bubblewrap-mount-plan.ts';
import type { LaunchedSandbox } from './launched-sandbox.ts';

export interface SandboxPoolOptions {
  /** Sandboxes that may wait at once (0: no pool). */
  maxIdle: number;
  /** How long a sandbox may wait for its call before it is killed. */
  idleMs: number;
  launch(plan: readonly PlanArgument[]): LaunchedSandbox;
}

export interface SandboxPool {
  /** The waiting sandbox of `key`, taken out of the pool, or undefined. */
  take(key: string): LaunchedSandbox | undefined;
  /** Builds a sandbox for the next call of `key` unless one waits already. */
  prepare(key: string, plan: readonly PlanArgument[]): void;
  /** How many sandboxes wait, per key (for tests and the benchmark). */
  waiting(): Map<string, number>;
  /** Resolves once every waiting sandbox is built (or failed); for tests and the benchmark. */
  settled(): Promise<void>;
  dispose(): void;
}

/** The pool key of a sandbox built from `plan` (see the module header). */
export function sandboxKey(plan: readonly PlanArgument[]): string {
  return JSON.stringify(describePlan(plan));
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
    prepare(key: string, plan: readonly PlanArgument[]): void {
      if (disposed || options.maxIdle <= 0) return;
      if (waiting.some((entry) => entry.key === key)) return;
      while (waiting.length >= options.maxIdle) discard(waiting[0] as Waiting);
      let sandbox: LaunchedSandbox;
      try {
        sandbox = options.launch(plan);
      } catch {
        // Nothing to prepare (a mount source changed, or spawning failed): the call that needs it
        // builds its own and reports the failure.
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
