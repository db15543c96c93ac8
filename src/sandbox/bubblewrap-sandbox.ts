/**
 * The Linux shell sandbox: every command in its own bubblewrap sandbox, built per call.
 *
 * Guarantees (each checked by tests/sandbox/ with real commands):
 * - No privilege, and a uid per user. When the server runs as root, `setpriv` drops to the calling
 *   user's own uid and gid (sandbox-users.ts; the sandbox group and the reached grants' groups as the
 *   only supplementary groups, no capabilities in any set, `no_new_privs`) before bubblewrap starts,
 *   so bubblewrap builds an unprivileged user namespace, a mapped uid is never real root, and one
 *   tenant's processes can neither signal another's nor open their files. A server that is not root
 *   runs every call as its own uid (sandbox-identity.ts). Inside: `--cap-drop ALL`,
 *   `--disable-userns` (no further user namespaces), all namespaces unshared (own PID, mount, network,
 *   IPC, UTS, cgroup namespaces).
 * - Filesystem: exactly the call's reachable set plus the system view of bubblewrap-mount-plan.ts.
 *   Every root, cover and synthesized file is mounted by object (mount-sources.ts): the server opens
 *   it with no link allowed on any component and hands bubblewrap the descriptor, so a tenant who swaps
 *   a name in their workspace while the call starts makes the call fail; nothing else is ever mounted.
 * - Network: none. The network namespace holds only a down loopback: no host service, database or API.
 * - Lifetime: bubblewrap is this process's child with a parent-death SIGKILL (`--die-with-parent`),
 *   and every command's sandbox is registered with the owner's reaper, which kills the ones still
 *   registered (a sandbox still being built, too) when the server ends in any way (sandbox-reaper.ts);
 *   the waiter is PID 1 of the sandbox (sandbox-waiter.ts): when the interpreter exits, is killed, or
 *   the server dies, the PID namespace ends and every process in it (setsid, nohup and double forks
 *   included) dies with it. A call returns only once that has happened (sandbox-teardown.ts).
 * - Limits (`prlimit`, before the uid drop): processes of the call's uid, address space, file size;
 *   `/tmp`, `/dev/shm` and `HOME` are size-limited tmpfs mounts. Where the host has cgroup v1
 *   hierarchies the server can write, each Mango user also has a process limit, a memory share and a
 *   CPU share of their own (user-shares.ts), joined before the command starts; a command whose process
 *   the memory share's OOM kill ended says so (`termination.kind` `memory`), and one that could not
 *   start for want of a process slot fails at once, naming the limit.
 * - Environment: only shell-environment.ts's allowlist, handed to the interpreter when the call starts
 *   (sandbox-waiter.ts); bubblewrap and the waiter start with an empty one, so `/proc/1/environ` holds
 *   nothing.
 * - The interpreter's real wait status is reported (sandbox-waiter.ts), so a death by signal is
 *   `signalled` with its signal.
 * - Warm pool (sandbox-pool.ts): after a call, a sandbox for the same plan is built ahead of the next
 *   call and handed only to a call with exactly that plan whose mount sources are still the objects it
 *   was built with (checked again at hand-over, sandbox-call-start.ts); otherwise a call builds its own.
 * - Each command is logged as one JSON line: user, chat, shell, command, cwd, outcome.
 * - Fails closed: `status()` is unavailable, with the reason, until a probe sandbox (sandbox-probe.ts) has run and shown
 *   uid ≠ 0, `CapEff` 0 and `NoNewPrivs` 1 inside; `run` then refuses. The probe mounts its root by
 *   descriptor, so a bubblewrap without `--bind-fd` (before 0.10; Debian 12 backports it) is refused
 *   with the version it needs.
 */

import { defaultOf } from '../config/environment-variables.ts';
import { processEnvironment } from '../config/process-environment.ts';
import { ToolError } from '../tools/errors.ts';
import { type BubblewrapCallContext, createBubblewrapCallSetup } from './bubblewrap-call-setup.ts';
import { runBubblewrapCommand } from './bubblewrap-command-run.ts';
import { type HostLayout, type PlanArgument, systemProgramDirectories } from './bubblewrap-mount-plan.ts';
import { prepareBubblewrapProgram } from './bubblewrap-program-launch.ts';
import { bubblewrapStatus } from './bubblewrap-status.ts';
import { prepareFileWorkerSandbox } from './file-worker-sandbox.ts';
import { hostLayout } from './host-layout.ts';
import { type LaunchedSandbox, launchSandbox } from './launched-sandbox.ts';
import {
  DEFAULT_SANDBOX_LIMITS,
  findPrograms,
  type SandboxLimits,
  type SandboxPrograms,
} from './sandbox-arguments.ts';
import {
  createCallIdentities,
  decideSandboxIdentities,
  SANDBOX_HOME,
  SANDBOX_USER,
  type SandboxIdentity,
} from './sandbox-identity.ts';
import { createSandboxPool } from './sandbox-pool.ts';
import { createSandboxReaper } from './sandbox-reaper.ts';
import type { SandboxStateDirectory } from './sandbox-state-directory.ts';
import type { SandboxUsers } from './sandbox-users.ts';
import { type ShellSandbox, searchPathOf } from './shell-sandbox.ts';
import { openUserShares, type UserShareRoots } from './user-shares.ts';

export { DEFAULT_SANDBOX_LIMITS, type SandboxLimits, type SandboxPrograms };

/** The warm pool's bounds (sandbox-pool.ts). */
export interface SandboxPoolSettings {
  /** Sandboxes built ahead that may wait at once; 0 turns the pool off. */
  maxIdle: number;
  /** How long a built sandbox waits for its call before it is killed, milliseconds. */
  idleMs: number;
}

export const DEFAULT_SANDBOX_POOL: SandboxPoolSettings = {
  maxIdle: defaultOf('MANGO_SANDBOX_POOL'),
  idleMs: 30_000,
};

export interface BubblewrapSandboxOptions {
  /** Default: `bwrap`, `setpriv`, `prlimit` on PATH; Perl at `/usr/bin/perl` (it must lie in `/usr`). */
  programs?: Partial<SandboxPrograms>;
  /**
   * Each user's uid, gid and groups when the server is root (sandbox-users.ts). Required then: a root
   * sandbox without it is unavailable (sandbox-identity.ts). Unused when the server is not root.
   */
  users?: SandboxUsers;
  /**
   * The one uid of earlier versions (`MANGO_SANDBOX_UID`): with a uid per user, a call reaching a root
   * that still belongs to it is refused until `mango workspace migrate-owners` ran (unmigrated-roots.ts).
   */
  legacyUid?: number;
  limits?: Partial<SandboxLimits>;
  /** Default {@link DEFAULT_SANDBOX_POOL}. */
  pool?: Partial<SandboxPoolSettings>;
  /** Variable names an operator passes through (`MANGO_SHELL_PASS_ENV`). */
  passEnv?: readonly string[];
  /** Where allowlisted variables are read from (default: the process environment, `processEnvironment()`). */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Receives one JSON line per command (default: stdout). */
  log?: (line: string) => void;
  /**
   * The cgroup v1 hierarchies of the per-user shares (default: `/sys/fs/cgroup/<controller>`, used only
   * when the server is root); `null` switches a share off (user-shares.ts).
   */
  cgroupRoots?: UserShareRoots;
  /** The server's own uid (default `process.getuid()`); injectable to test the decision. */
  serverUid?: number;
  host?: HostLayout;
}

export interface BubblewrapSandbox extends ShellSandbox {
  /** True when the server is root and runs each user's calls as that user's uid. */
  readonly dropsPrivilege: boolean;
  /** Who `userId`'s calls reaching `roots` run as. Throws what the id store throws. */
  identityFor(userId: string, roots?: readonly string[]): Promise<SandboxIdentity>;
  /** The host directory of the synthesized accounts and covers (sandbox-state-directory.ts). */
  stateDirectory(): string | undefined;
  /** How many pooled sandboxes wait, per pool key (sandbox-pool.ts). */
  waitingSandboxes(): Map<string, number>;
  /** Resolves once every pooled sandbox is built: a call now finds it ready (tests, benchmark). */
  poolSettled(): Promise<void>;
  /** Makes the sandbox unavailable and kills its pooled sandboxes (the state directory stays). */
  dispose(): void;
}

/** Creates the sandbox and runs its probe (synchronously, once, about 10 ms). */
export function createBubblewrapSandbox(options: BubblewrapSandboxOptions = {}): BubblewrapSandbox {
  const serverUid = options.serverUid ?? process.getuid?.() ?? -1;
  const identities = decideSandboxIdentities(serverUid, process.getgid?.() ?? serverUid, options.users);
  const limits: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
  const dropsPrivilege = serverUid === 0;
  const host = options.host ?? hostLayout;
  const programs = process.platform === 'linux' ? findPrograms(options.programs) : 'this is not Linux.';
  const setup = createBubblewrapCallSetup({
    limits,
    dropsPrivilege,
    host,
    passEnv: options.passEnv,
    source: options.environment ?? processEnvironment(),
  });

  // Per-user cgroups sit under one parent per identity store: the range's base, or the one uid.
  const shares = openUserShares({
    parentId: identities.kind === 'per-user' ? identities.range.base : serverUid,
    serverIsRoot: dropsPrivilege,
    limits,
    roots: options.cgroupRoots,
  });
  let { status, state } = bubblewrapStatus({ programs, identities, setup, sharesSummary: shares.summary });

  const callers = createCallIdentities(identities, options.legacyUid);
  const poolSettings: SandboxPoolSettings = { ...DEFAULT_SANDBOX_POOL, ...options.pool };
  // One reaper for every sandbox of this owner, started with the first one: a server that never runs
  // a command starts no extra process. Without the programs no sandbox is ever launched, so the
  // default Perl only stands in.
  const reaper = createSandboxReaper(typeof programs === 'string' ? '/usr/bin/perl' : programs.perl);
  const launch = (plan: readonly PlanArgument[]): LaunchedSandbox => launchSandbox(plan, reaper);
  const pool = createSandboxPool({ ...poolSettings, launch });
  const context: BubblewrapCallContext = {
    setup,
    identityFor: callers.identityFor,
    /** The checks every call and program start makes before it plans anything. */
    ready: () => {
      if (!status.available || typeof programs === 'string' || !state) {
        throw new ToolError(
          'execution_error',
          status.available ? 'The shell sandbox is not ready.' : status.reason,
        );
      }
      return { tools: programs, files: readyState(state) };
    },
    available: () => status.available,
    pool,
    shares,
    launch,
    log: options.log ?? ((line: string) => console.log(line)),
  };

  return {
    dropsPrivilege,
    identityFor: callers.identityFor,
    status: () => status,
    stateDirectory: () => state?.path,
    fileOwner: callers.fileOwner,
    sandboxGroup: callers.sandboxGroup,
    waitingSandboxes: () => pool.waiting(),
    poolSettled: () => pool.settled(),
    dispose() {
      state = undefined;
      status = { available: false, reason: 'The shell sandbox was shut down.' };
      pool.dispose();
    },
    programView: (variables) => ({
      searchPath: searchPathOf({
        ...setup.environmentFor({ home: SANDBOX_HOME, user: SANDBOX_USER }, '/bin/sh', []),
        ...variables,
      }),
      systemDirectories: systemProgramDirectories(host),
    }),
    prepareProgram: (program) => prepareBubblewrapProgram(program, context),
    prepareFileWorker: (worker) => prepareFileWorkerSandbox(worker, context),
    watchProcessLimit: (userId, subject) => shares.watchProcessLimit(userId, subject),
    run: (command) => runBubblewrapCommand(command, context),
  };
}

/** The state directory, repaired if a temp-directory cleaner removed part of it. */
function readyState(directory: SandboxStateDirectory): SandboxStateDirectory {
  try {
    directory.ensure();
  } catch (error) {
    throw new ToolError('execution_error', `The shell sandbox cannot run: ${(error as Error).message}`);
  }
  return directory;
}
