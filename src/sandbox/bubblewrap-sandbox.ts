/**
 * The Linux shell sandbox: every command in its own bubblewrap sandbox, built per call.
 *
 * Guarantees (each checked by tests/sandbox/ with real commands):
 * - No privilege. When the server runs as root, `setpriv` drops to the unprivileged sandbox uid (no
 *   groups, no capabilities in any set, `no_new_privs`) before bubblewrap starts, so bubblewrap builds
 *   an unprivileged user namespace and a mapped uid is never real root. Inside: `--cap-drop ALL`,
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
 * - Limits (`prlimit`, before the uid drop): processes of the sandbox uid, address space, file size;
 *   `/tmp`, `/dev/shm` and `HOME` are size-limited tmpfs mounts. Where the host has a pids cgroup the
 *   server can write, each Mango user's commands also have a process limit of their own
 *   (user-process-cgroups.ts), joined before the command starts.
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

import { userInfo } from 'node:os';
import { defaultOf } from '../config/environment-variables.ts';
import { ToolError } from '../tools/errors.ts';
import { runShellCommand, type ShellCommandResult } from '../tools/shell/run-shell-command.ts';
import { buildShellEnvironment } from '../tools/shell/shell-environment.ts';
import type { ShellInterpreter } from '../tools/shell/shell-interpreter.ts';
import {
  describePlan,
  type HostLayout,
  type PlanArgument,
  systemProgramDirectories,
} from './bubblewrap-mount-plan.ts';
import { hostLayout } from './host-layout.ts';
import { type LaunchedSandbox, launchSandbox } from './launched-sandbox.ts';
import {
  DEFAULT_SANDBOX_LIMITS,
  findPrograms,
  type SandboxLimits,
  type SandboxPrograms,
  sandboxArguments,
} from './sandbox-arguments.ts';
import { sandboxBuildFailure } from './sandbox-build-failure.ts';
import { startSandboxForCall } from './sandbox-call-start.ts';
import { decideSandboxIdentity } from './sandbox-identity.ts';
import { formatSandboxLogLine } from './sandbox-log-line.ts';
import { createSandboxPool, sandboxKey } from './sandbox-pool.ts';
import { runSandboxProbe } from './sandbox-probe.ts';
import { createSandboxReaper } from './sandbox-reaper.ts';
import {
  openSandboxStateDirectory,
  type SandboxIdentity,
  type SandboxStateDirectory,
} from './sandbox-state-directory.ts';
import { encodeWaiterMessage } from './sandbox-waiter.ts';
import { startSandboxedProgram } from './sandboxed-program-start.ts';
import {
  type SandboxedCommand,
  type SandboxedProgram,
  type SandboxedProgramLaunch,
  type ShellSandbox,
  type ShellSandboxStatus,
  searchPathOf,
} from './shell-sandbox.ts';
import { openUserProcessCgroups, PIDS_CGROUP_ROOT, type UserProcessCgroups } from './user-process-cgroups.ts';

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
  /** The uid commands run as when the server is root (default `DEFAULT_SANDBOX_UID`, sandbox-identity.ts). */
  uid?: number;
  limits?: Partial<SandboxLimits>;
  /** Default {@link DEFAULT_SANDBOX_POOL}. */
  pool?: Partial<SandboxPoolSettings>;
  /** Variable names an operator passes through (`MANGO_SHELL_PASS_ENV`). */
  passEnv?: readonly string[];
  /** Where allowlisted variables are read from (default `process.env`). */
  environment?: Readonly<Record<string, string | undefined>>;
  /** Receives one JSON line per command (default: stdout). */
  log?: (line: string) => void;
  /**
   * The cgroup v1 pids hierarchy for per-user process limits (default {@link PIDS_CGROUP_ROOT}, used
   * only when the server is root); `null` leaves only the shared limit.
   */
  processCgroupRoot?: string | null;
  /** The server's own uid (default `process.getuid()`); injectable to test the decision. */
  serverUid?: number;
  host?: HostLayout;
}

export interface BubblewrapSandbox extends ShellSandbox {
  readonly identity: SandboxIdentity;
  /** True when the server is root and hands files to the sandbox uid (see sandbox-file-owner.ts). */
  readonly dropsPrivilege: boolean;
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
  const identity = decideSandboxIdentity(serverUid, options.uid);
  const limits: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS, ...options.limits };
  const dropsPrivilege = serverUid === 0;
  const host = options.host ?? hostLayout;
  const log = options.log ?? ((line: string) => console.log(line));
  const source = options.environment ?? process.env;
  let state: SandboxStateDirectory | undefined;
  let status: ShellSandboxStatus;

  const programs = process.platform === 'linux' ? findPrograms(options.programs) : 'this is not Linux.';
  const environmentFor = (interpreterPath: string, deniedEnvVars: readonly string[]) =>
    buildShellEnvironment(
      { home: identity.home, user: identity.user, shell: interpreterPath },
      { passEnv: options.passEnv, deniedEnvVars },
      source,
    );

  const argumentsFor = (
    tools: SandboxPrograms,
    files: SandboxStateDirectory,
    command: Pick<SandboxedCommand, 'reachable' | 'cwd' | 'deniedPaths'>,
    probing = false,
    program?: Pick<SandboxedProgram, 'argv' | 'network'>,
  ): PlanArgument[] =>
    sandboxArguments({
      programs: tools,
      identity,
      limits,
      dropsPrivilege,
      files,
      command,
      host,
      probing,
      program,
    });

  const probe = (tools: SandboxPrograms, files: SandboxStateDirectory): string | undefined => {
    const reachable = {
      workingDirectory: files.path,
      homeDirectory: files.path,
      roots: [{ path: files.path, access: 'read-only' as const }],
      protectedPaths: [],
    };
    return runSandboxProbe({
      bwrap: tools.bwrap,
      plan: argumentsFor(tools, files, { reachable, cwd: files.path, deniedPaths: [] }, true),
      environment: environmentFor('/bin/sh', []),
    });
  };

  const cgroups: UserProcessCgroups | string = !dropsPrivilege
    ? 'the server is not root'
    : options.processCgroupRoot === null
      ? 'per-user limits are switched off'
      : openUserProcessCgroups(
          identity.uid,
          limits.userProcesses,
          options.processCgroupRoot ?? PIDS_CGROUP_ROOT,
        );

  if (typeof programs === 'string') {
    status = { available: false, reason: `The shell sandbox cannot run: ${programs}` };
  } else {
    let problem: string | undefined;
    try {
      state = openSandboxStateDirectory(identity);
      problem = probe(programs, state);
    } catch (error) {
      problem = (error as Error).message;
    }
    status = problem
      ? { available: false, reason: `The shell sandbox cannot run: ${problem}` }
      : {
          available: true,
          mode: 'bubblewrap',
          summary: `bubblewrap, uid ${identity.uid}${dropsPrivilege ? ' (dropped from root)' : ` (the server's own, ${userInfo().username})`}, no network, ${
            typeof cgroups === 'string'
              ? `one limit of ${limits.processes} processes shared by all users (${cgroups})`
              : `at most ${cgroups.limit} processes per user`
          }`,
        };
  }

  /** The state directory, repaired if a temp-directory cleaner removed part of it. */
  const readyState = (directory: SandboxStateDirectory): SandboxStateDirectory => {
    try {
      directory.ensure();
    } catch (error) {
      throw new ToolError('execution_error', `The shell sandbox cannot run: ${(error as Error).message}`);
    }
    return directory;
  };

  const poolSettings: SandboxPoolSettings = { ...DEFAULT_SANDBOX_POOL, ...options.pool };
  // One reaper for every sandbox of this owner, started with the first one: a server that never runs
  // a command starts no extra process. Without the programs no sandbox is ever launched, so the
  // default Perl only stands in.
  const reaper = createSandboxReaper(typeof programs === 'string' ? '/usr/bin/perl' : programs.perl);
  const launch = (plan: readonly PlanArgument[]): LaunchedSandbox => launchSandbox(plan, reaper);
  const pool = createSandboxPool({ ...poolSettings, launch });

  return {
    identity,
    dropsPrivilege,
    status: () => status,
    stateDirectory: () => state?.path,
    fileOwner: () => (dropsPrivilege ? { uid: identity.uid, gid: identity.gid } : undefined),
    waitingSandboxes: () => pool.waiting(),
    poolSettled: () => pool.settled(),
    dispose() {
      state = undefined;
      status = { available: false, reason: 'The shell sandbox was shut down.' };
      pool.dispose();
    },
    programView: (variables) => ({
      searchPath: searchPathOf({ ...environmentFor('/bin/sh', []), ...variables }),
      systemDirectories: systemProgramDirectories(host),
    }),
    prepareProgram(program: SandboxedProgram): SandboxedProgramLaunch {
      if (!status.available || typeof programs === 'string' || !state) {
        throw new ToolError(
          'execution_error',
          status.available ? 'The shell sandbox is not ready.' : status.reason,
        );
      }
      const plan = argumentsFor(
        programs,
        readyState(state),
        { reachable: program.reachable, cwd: program.cwd, deniedPaths: [] },
        false,
        program,
      );
      const launch = {
        argv: describePlan(plan),
        environment: { ...environmentFor('/bin/sh', []), ...program.environment },
        cwd: program.cwd,
      };
      return {
        ...launch,
        start: () =>
          startSandboxedProgram({
            plan,
            environment: launch.environment,
            cgroups,
            userId: program.userId,
          }),
      };
    },
    async run(command: SandboxedCommand): Promise<ShellCommandResult> {
      if (!status.available || typeof programs === 'string' || !state) {
        throw new ToolError(
          'execution_error',
          status.available ? 'The shell sandbox is not ready.' : status.reason,
        );
      }
      const interpreter: ShellInterpreter = {
        kind: command.shell,
        executable: command.interpreterPath,
        argumentsFor: (line) => [command.interpreterPath, '-c', line],
      };
      const plan = argumentsFor(programs, readyState(state), command);
      let prebuilt: boolean | undefined;
      let launched: LaunchedSandbox | undefined;
      const result = await runShellCommand({
        ...command,
        interpreter,
        environment: environmentFor(command.interpreterPath, command.deniedEnvVars),
        wrapper: {
          start: (interpreterArguments, environment) =>
            startSandboxForCall({
              pool,
              cgroups,
              plan,
              launch,
              message: encodeWaiterMessage(interpreterArguments, environment),
              timeoutMs: command.timeoutMs,
              userId: command.userId,
              onStart: (value, sandbox) => {
                prebuilt = value;
                launched = sandbox;
              },
            }),
        },
      });
      // The next call of this chat most likely needs the same plan: build its sandbox now, while the
      // model reads this result.
      if (status.available) pool.prepare(sandboxKey(plan), plan);
      log(formatSandboxLogLine('bubblewrap', command, result, prebuilt));
      const failure = launched && (await sandboxBuildFailure(launched, result, identity.uid));
      if (failure) throw new ToolError('execution_error', failure);
      return result;
    },
  };
}
