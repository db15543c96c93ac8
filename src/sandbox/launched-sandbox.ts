/**
 * One sandbox process: the bubblewrap chain started with the waiter inside (sandbox-waiter.ts), used
 * for exactly one call. It may be started when the call starts, or ahead of it by the pool
 * (sandbox-pool.ts); either way the call hands it the command with `handOver`.
 *
 * Guarantees:
 * - Started from this (the main) thread with an empty environment, `setsid` (it leads its own process
 *   group, which `discard` and the call's timeout kill), and bubblewrap's parent-death signal, so it
 *   dies with the server whether it is idle or running a command. Its group is registered with the
 *   owner's reaper right after the spawn and forgotten on `release` or `discard`, which covers a
 *   server that ends while the sandbox is still being built (sandbox-reaper.ts).
 * - While idle it holds nothing that keeps the server's event loop alive (a CLI exits while a sandbox
 *   waits) and reads none of its pipes: what the sandbox writes waits in the pipe for the call.
 * - `handOver` writes the message once; a second hand-over is refused. `ready()` tells whether the
 *   waiter started (bubblewrap built the sandbox), without consuming anything the call needs later.
 * - Every descriptor this process holds for the sandbox is closed by `release` (after the call) or
 *   `discard` (a sandbox nobody will use), so a long-running server does not collect them. The mount
 *   sources (mount-sources.ts) are opened just before the spawn and the server's copies closed right
 *   after it: the child holds its own until bubblewrap has mounted them.
 * - bubblewrap starts in `/`: the call's working directory lies in a tree a tenant may change, so it is
 *   entered inside the sandbox (`--chdir`), never resolved on the host.
 */
import { killProcessGroup } from '../tools/shell/process-group.ts';
import type { ShellChild, ShellWaitStatus } from '../tools/shell/run-shell-command.ts';
import type { PlanArgument } from './bubblewrap-mount-plan.ts';
import { descriptorReader } from './descriptor-reader.ts';
import { type MountIdentity, openMountSources } from './mount-sources.ts';
import { MOUNT_DESCRIPTORS_FROM } from './sandbox-arguments.ts';
import type { SandboxReaper } from './sandbox-reaper.ts';
import { parseWaiterRecord, type WaiterRecord, waitStatusOf } from './sandbox-waiter.ts';

export interface LaunchedSandbox {
  readonly child: ShellChild;
  /** The objects it mounts by descriptor, as they were when it was built (mount-sources.ts). */
  readonly mounts: readonly MountIdentity[];
  /** True once the waiter reported that it runs; false when the process ended first or `limitMs` passed. */
  ready(limitMs: number): Promise<boolean>;
  /** Whether the waiter ever started: false when bubblewrap could not build the sandbox. */
  started(): Promise<boolean>;
  /** Hands the sandbox its call: the message of encodeWaiterMessage. */
  handOver(message: Uint8Array): Promise<void>;
  /** The interpreter's real wait status after the process exited (undefined when none was reported). */
  waitStatus(): Promise<ShellWaitStatus | undefined>;
  /** What the waiter reported after the process exited: the status, or why the interpreter never ran. */
  record(): Promise<WaiterRecord | undefined>;
  /**
   * What bubblewrap wrote on its info descriptor (the host pid of the sandbox's PID 1): the JSON
   * object, read up to its closing brace (the descriptor itself stays open in the sandbox until it
   * ends), or '' when nothing came within `limitMs`.
   */
  info(limitMs: number): Promise<string>;
  /** Closes this process's ends of the sandbox's pipes, once the call is over. */
  release(): void;
  /** Kills the sandbox with everything in it, and releases it. */
  discard(): void;
}

/**
 * Starts the sandbox whose plan is `plan` (it must end with the waiter). Throws MountSourceError when
 * a mount source is not the object the call validated.
 */
/**
 * Starts bubblewrap on the plan with every mount source handed over by descriptor; the server's own
 * copies of the descriptors are closed whether or not the start worked.
 */
function spawnSandbox(plan: readonly PlanArgument[]) {
  const mounts = openMountSources(plan, MOUNT_DESCRIPTORS_FROM);
  try {
    const child = Bun.spawn(mounts.argv, {
      cwd: '/',
      env: {},
      // 0: the call's message; 1, 2: the command's output; 3: the waiter's records; 4: bubblewrap's
      // info; from 5: the mount sources.
      stdio: ['pipe', 'pipe', 'pipe', 'pipe', 'pipe', ...mounts.descriptors],
      detached: true,
    });
    return { child, mounts };
  } finally {
    mounts.close();
  }
}

/** Whether the sandbox said it started within `limitMs`; false when it had not by then. */
function startedWithin(started: Promise<boolean>, limitMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), limitMs);
  });
  return Promise.race([started, late]).finally(() => clearTimeout(timer));
}

export function launchSandbox(plan: readonly PlanArgument[], reaper: SandboxReaper): LaunchedSandbox {
  const { child, mounts } = spawnSandbox(plan);
  // Synchronously, before anything else: only a SIGKILL of the server can land before this line.
  reaper.register(child.pid);
  // An idle sandbox must not keep the process alive; the call's own readers and timer do that.
  child.unref();
  const records = descriptorReader(child.stdio[3]);
  const information = descriptorReader(child.stdio[4]);
  let readiness: Promise<boolean> | undefined;
  let released = false;
  /**
   * Whether the waiter's first record says it started; read once, whoever asks first. Records closed
   * by `release` before the line was read prove nothing: the sandbox counts as started, and the
   * command's own status stands, rather than a build failure nobody saw.
   */
  const started = (): Promise<boolean> => {
    readiness ??= records.line().then((line) => line === 'ready' || (line === undefined && released));
    return readiness;
  };
  let handedOver = false;
  let recorded: Promise<WaiterRecord | undefined> | undefined;
  /** The waiter's record, read once, whoever asks first. */
  const record = (): Promise<WaiterRecord | undefined> => {
    // A sandbox handed over before it was ready still starts with the waiter's "ready" line.
    recorded ??= started().then(async (ran) => (ran ? parseWaiterRecord(await records.rest()) : undefined));
    return recorded;
  };

  const ready = (limitMs: number): Promise<boolean> => startedWithin(started(), limitMs);

  return {
    child: child as ShellChild,
    mounts: mounts.identities,
    ready,
    started,
    async handOver(message: Uint8Array): Promise<void> {
      if (handedOver) throw new Error('A sandbox is used for one call only.');
      handedOver = true;
      child.ref();
      try {
        child.stdin.write(message);
        await child.stdin.end();
      } catch {
        // The sandbox ended before it read its call (bubblewrap failed): its exit status and stderr
        // say why, as for any other failure to start.
      }
    },
    waitStatus: async () => waitStatusOf(await record()),
    record,
    info: (limitMs: number): Promise<string> => information.through('}', limitMs),
    release(): void {
      // The call waited for the namespace to end (sandbox-teardown.ts): nothing of the group is left.
      released = true;
      reaper.forget(child.pid);
      records.close();
      information.close();
    },
    discard(): void {
      killProcessGroup(child.pid);
      reaper.forget(child.pid);
      try {
        child.stdin.end();
      } catch {
        // Already closed.
      }
      records.close();
      information.close();
      // Nobody will read what it wrote: let go of the output pipes too.
      void child.stdout.cancel().catch(() => {});
      void child.stderr.cancel().catch(() => {});
    },
  };
}
