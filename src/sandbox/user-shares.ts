/**
 * Fair shares: one tenant cannot starve another of processes, memory or CPU. Each Mango user's
 * sandboxes (commands and stdio MCP servers together) join, before they run anything, a pids cgroup
 * with the user's process limit (user-process-cgroups.ts), a memory cgroup of their own under the
 * user's memory share (user-memory-cgroups.ts) and the user's cpu cgroup (user-cpu-cgroups.ts).
 *
 * Guarantees:
 * - Each share is used where the server is root and the host has a writable cgroup v1 hierarchy of its
 *   controller; where one is not, the start-up line (`summary`) says why, and what bounds a command
 *   instead: the uid's `RLIMIT_NPROC`, the per-process address-space limit and the tmpfs sizes, or
 *   nothing (CPU time is then divided between processes).
 * - `admit` joins every share that is in use, or throws naming the one it could not join; the caller
 *   then kills the sandbox, and its memory cgroup is removed once it is gone.
 * - A sandbox whose process the OOM killer ended reports the share that ran out (`finish`), read when
 *   the sandbox has ended; its memory cgroup is removed then.
 * - The message of a command that could not start for want of a process slot names the limits that
 *   apply to its user.
 */
import { formatBytes } from '../tools/output/cut-notices.ts';
import type { SandboxLimits } from './sandbox-arguments.ts';
import { openUserCpuCgroups, type UserCpuCgroups } from './user-cpu-cgroups.ts';
import { openUserMemoryCgroups, type SandboxMemory, type UserMemoryCgroups } from './user-memory-cgroups.ts';
import { openUserProcessCgroups, type UserProcessCgroups } from './user-process-cgroups.ts';

/** The cgroup v1 hierarchy of each controller; `null` switches that share off. */
export interface UserShareRoots {
  processes?: string | null;
  memory?: string | null;
  cpu?: string | null;
}

export interface UserSharesOptions {
  /** The parent cgroups' id: the sandbox range's base, or the one uid every call runs as. */
  parentId: number;
  /** Only a root server can make cgroups (and only it gives each user a uid of their own). */
  serverIsRoot: boolean;
  limits: SandboxLimits;
  /** Default: each controller's Debian-family mount point. */
  roots?: UserShareRoots;
}

/** How a sandbox ended when one of its user's shares, not the command, decided it. */
export interface ShareTermination {
  kind: 'memory';
  limitBytes: number;
}

/** A sandbox within its user's shares. */
export interface AdmittedSandbox {
  /**
   * Call once the sandbox has ended: whether the OOM killer ended one of its processes (then the share
   * that ran out), and the sandbox's own cgroups are removed.
   */
  finish(): ShareTermination | undefined;
}

export interface UserShares {
  readonly processes: UserProcessCgroups | string;
  readonly memory: UserMemoryCgroups | string;
  readonly cpu: UserCpuCgroups | string;
  /** What the start-up line says of the shares (or what bounds commands instead). */
  readonly summary: string;
  /** True when at least one share is in use: sandboxes must then be admitted before they run. */
  readonly admits: boolean;
  /** Joins `pid` (a sandbox's PID 1) to `userId`'s shares. Throws naming the share it could not join. */
  admit(userId: string, pid: number): AdmittedSandbox;
  /**
   * Why a command could not start: creating its process failed with `errno` (`reason` its text).
   * `subject` says what could not start (default "The command could not start").
   */
  startFailureMessage(errno: string, reason: string, subject?: string): string;
  /**
   * A watch on `userId`'s per-user process limit from now: called after work of theirs failed, it gives
   * the message for that work (`subject` what failed) when the limit refused a process or thread of
   * theirs since, or holds them at it now; undefined otherwise, or when no per-user limit is in use.
   */
  watchProcessLimit(userId: string, subject: string): () => string | undefined;
}

type Opened<T> = T | string;

function open<T>(
  serverIsRoot: boolean,
  root: string | null | undefined,
  opener: (root: string | undefined) => Opened<T>,
): Opened<T> {
  if (!serverIsRoot) return 'the server is not root';
  if (root === null) return 'per-user limits are switched off';
  return opener(root);
}

function describe(
  processes: Opened<UserProcessCgroups>,
  memory: Opened<UserMemoryCgroups>,
  cpu: Opened<UserCpuCgroups>,
  limits: SandboxLimits,
): string {
  const fallback =
    `${formatBytes(limits.addressSpaceBytes)} of address space per process, /tmp ${formatBytes(limits.tmpBytes)}, ` +
    `HOME ${formatBytes(limits.homeBytes)}, /dev/shm ${formatBytes(limits.shmBytes)}`;
  const reasons = [processes, memory, cpu].filter((share) => typeof share === 'string');
  if (reasons.length === 3 && new Set(reasons).size === 1) {
    return `no per-user shares (${reasons[0]}): at most ${limits.processes} processes per uid, ${fallback}, CPU time divided between processes`;
  }
  return [
    typeof processes === 'string'
      ? `at most ${limits.processes} processes per uid (${processes})`
      : `at most ${processes.limit} processes per user`,
    typeof memory === 'string'
      ? `no memory share per user (${memory}): ${fallback}`
      : `${formatBytes(memory.limitBytes)} of memory per user (a memory cgroup${memory.swapCounted ? ', swap included' : ''})`,
    typeof cpu === 'string' ? `no CPU share per user (${cpu})` : 'an equal CPU share per user (a cpu cgroup)',
  ].join(', ');
}

/**
 * The wording of a command (or other work, `subject`) that could not start for want of a process: the
 * limit that applies to its user, per user where the server is root, per uid otherwise.
 */
function startFailureWording(
  serverIsRoot: boolean,
  limits: SandboxLimits,
  processes: Opened<UserProcessCgroups>,
): (errno: string, reason: string, subject?: string) => string {
  return (errno: string, reason: string, subject = 'The command could not start'): string => {
    if (errno !== 'EAGAIN') {
      return `${subject}: the sandbox could not create its process (${reason}).`;
    }
    if (!serverIsRoot) {
      // Without root every user's commands run as the server's uid: its limit is everyone's.
      return (
        `${subject}: the processes of uid ${process.getuid?.()}, which every user's ` +
        `commands run as here, are at their limit (${limits.processes}, RLIMIT_NPROC). Wait for ` +
        'other commands to finish; run the server as root for a limit per user.'
      );
    }
    const perUser =
      typeof processes === 'string'
        ? ''
        : `${processes.limit} per user, all their commands and MCP servers together; `;
    return (
      `${subject}: this user's processes are at their limit (${perUser}` +
      `${limits.processes} per uid, RLIMIT_NPROC). Wait for this user's other commands to finish, or ` +
      'stop the one that holds the processes (a fork loop, say).'
    );
  };
}

/** Opens every share the host allows. */
export function openUserShares(options: UserSharesOptions): UserShares {
  const { parentId, serverIsRoot, limits } = options;
  const roots = options.roots ?? {};
  const processes = open(serverIsRoot, roots.processes, (root) =>
    openUserProcessCgroups(parentId, limits.userProcesses, root),
  );
  const memory = open(serverIsRoot, roots.memory, (root) =>
    openUserMemoryCgroups(parentId, limits.userMemoryBytes, root),
  );
  const cpu = open(serverIsRoot, roots.cpu, (root) => openUserCpuCgroups(parentId, root));

  const join = (share: string, step: () => void) => {
    try {
      step();
    } catch (error) {
      throw new Error(`per-user ${share}: ${(error as Error).message}`, { cause: error });
    }
  };

  const startFailureMessage = startFailureWording(serverIsRoot, limits, processes);
  return {
    processes,
    memory,
    cpu,
    summary: describe(processes, memory, cpu, limits),
    admits: [processes, memory, cpu].some((share) => typeof share !== 'string'),
    admit(userId, pid) {
      if (typeof processes !== 'string') join('process limit', () => processes.admit(userId, pid));
      let own: SandboxMemory | undefined;
      if (typeof memory !== 'string') join('memory share', () => (own = memory.admit(userId, pid)));
      try {
        if (typeof cpu !== 'string') join('CPU share', () => cpu.admit(userId, pid));
      } catch (error) {
        // The sandbox is killed by the caller; its memory cgroup goes once it is gone.
        own?.release();
        throw error;
      }
      let ended: ShareTermination | undefined;
      let finished = false;
      return {
        finish() {
          if (finished) return ended;
          finished = true;
          if (own && typeof memory !== 'string' && own.killed()) {
            ended = { kind: 'memory', limitBytes: memory.limitBytes };
          }
          own?.release();
          return ended;
        },
      };
    },
    startFailureMessage,
    watchProcessLimit(userId, subject) {
      if (typeof processes === 'string') return () => undefined;
      const before = processes.refusals(userId);
      return () =>
        processes.refusals(userId) > before || processes.atLimit(userId)
          ? startFailureMessage('EAGAIN', '', subject)
          : undefined;
    },
  };
}
