/**
 * The Linux shell sandbox: every command in its own bubblewrap sandbox, built per call.
 *
 * Guarantees (each checked by tests/tools/shell/sandbox/ with real commands):
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
 * - Lifetime: bubblewrap is this process's child with a parent-death SIGKILL (`--die-with-parent`), and
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
 *   was built with (checked again at hand-over); otherwise a call builds its own.
 * - Each command is logged as one JSON line: user, chat, shell, command, cwd, outcome.
 * - Fails closed: `status()` is unavailable, with the reason, until a probe sandbox has run and shown
 *   uid ≠ 0, `CapEff` 0 and `NoNewPrivs` 1 inside; `run` then refuses. The probe mounts its root by
 *   descriptor, so a bubblewrap without `--bind-fd` (before 0.10; Debian 12 backports it) is refused
 *   with the version it needs.
 */

import { userInfo } from 'node:os';
import { defaultOf } from '../../../config/environment-variables.ts';
import { ToolError } from '../../errors.ts';
import { runShellCommand, type ShellCommandResult, type WrappedShellProcess } from '../run-shell-command.ts';
import { buildShellEnvironment } from '../shell-environment.ts';
import type { ShellInterpreter } from '../shell-interpreter.ts';
import { describePlan, type HostLayout, type PlanArgument } from './bubblewrap-mount-plan.ts';
import { hostLayout } from './host-layout.ts';
import { type LaunchedSandbox, launchSandbox } from './launched-sandbox.ts';
import { MountSourceError, mountSourcesUnchanged, openMountSources } from './mount-sources.ts';
import { admitSandbox } from './sandbox-admission.ts';
import {
  DEFAULT_SANDBOX_LIMITS,
  findPrograms,
  MOUNT_DESCRIPTORS_FROM,
  type SandboxLimits,
  type SandboxPrograms,
  sandboxArguments,
} from './sandbox-arguments.ts';
import { sandboxBuildFailure } from './sandbox-build-failure.ts';
import { formatSandboxLogLine } from './sandbox-log-line.ts';
import { createSandboxPool, sandboxKey } from './sandbox-pool.ts';
import {
  openSandboxStateDirectory,
  type SandboxIdentity,
  type SandboxStateDirectory,
} from './sandbox-state-directory.ts';
import { waitForSandboxTeardown } from './sandbox-teardown.ts';
import { encodeWaiterMessage } from './sandbox-waiter.ts';
import { startSandboxedProgram } from './sandboxed-program-start.ts';
import type {
  SandboxedCommand,
  SandboxedProgram,
  SandboxedProgramLaunch,
  ShellSandbox,
  ShellSandboxStatus,
} from './shell-sandbox.ts';
import { openUserProcessCgroups, PIDS_CGROUP_ROOT, type UserProcessCgroups } from './user-process-cgroups.ts';

/** The uid (and gid) commands run as when the server is root. Below systemd's dynamic range. */
export const DEFAULT_SANDBOX_UID = defaultOf('MANGO_SANDBOX_UID');
export const SANDBOX_USER = 'sandbox';
export const SANDBOX_HOME = '/home/sandbox';
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

/** How long a call waits for a pooled sandbox that is still being built before it builds its own. */
const POOLED_READY_LIMIT_MS = 5000;
/** bubblewrap writes its info right after it started; this bounds the wait if it never did. */
const SETTLE_INFO_LIMIT_MS = 200;

export interface BubblewrapSandboxOptions {
  /** Default: `bwrap`, `setpriv`, `prlimit` on PATH; Perl at `/usr/bin/perl` (it must lie in `/usr`). */
  programs?: Partial<SandboxPrograms>;
  /** The uid commands run as when the server is root (default {@link DEFAULT_SANDBOX_UID}). */
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

/** The identity commands run as: the sandbox uid when the server is root, else the server's own uid. */
export function decideSandboxIdentity(serverUid: number, configuredUid: number | undefined): SandboxIdentity {
  const uid = serverUid === 0 ? (configuredUid ?? DEFAULT_SANDBOX_UID) : serverUid;
  if (uid === 0) throw new RangeError('The shell sandbox uid must not be 0 (root).');
  if (serverUid !== 0 && configuredUid !== undefined && configuredUid !== serverUid) {
    throw new RangeError(
      `MANGO_SANDBOX_UID=${configuredUid} needs the server to run as root (it runs as uid ${serverUid}, and only root can switch uid); unset it to run commands as uid ${serverUid}.`,
    );
  }
  return { uid, gid: uid, user: SANDBOX_USER, home: SANDBOX_HOME };
}

/** The probe's command: what the sandbox must show about itself before any user command runs. */
const PROBE_COMMAND = 'id -u; grep -E "^(CapEff|NoNewPrivs):" /proc/self/status';

/** Why the probe's output does not show an unprivileged sandbox, or undefined when it does. */
export function judgeProbeOutput(output: string): string | undefined {
  const lines = output.trim().split('\n');
  const uid = lines[0]?.trim();
  if (uid === undefined || !/^\d+$/.test(uid))
    return `the probe printed no uid (got ${JSON.stringify(output)}).`;
  if (uid === '0') return 'a command in the probe sandbox ran as uid 0 (root).';
  const capabilities = /^CapEff:\s*([0-9a-f]+)$/m.exec(output)?.[1];
  if (capabilities === undefined || /[^0]/.test(capabilities)) {
    return `a command in the probe sandbox kept capabilities (CapEff: ${capabilities ?? 'missing'}).`;
  }
  if (!/^NoNewPrivs:\s*1$/m.test(output)) return 'no_new_privs was not set in the probe sandbox.';
  return undefined;
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
    const plan = argumentsFor(tools, files, { reachable, cwd: files.path, deniedPaths: [] }, true);
    let mounts: ReturnType<typeof openMountSources>;
    try {
      mounts = openMountSources(plan, MOUNT_DESCRIPTORS_FROM);
    } catch (error) {
      return `the probe sandbox could not open its mounts: ${(error as Error).message}`;
    }
    try {
      const result = Bun.spawnSync(mounts.argv, {
        cwd: '/',
        env: {},
        // 3 and 4 stay unused (the probe has no records or info to read); the mounts follow them.
        stdio: [
          encodeWaiterMessage(['/bin/sh', '-c', PROBE_COMMAND], environmentFor('/bin/sh', [])),
          'pipe',
          'pipe',
          'ignore',
          'ignore',
          ...mounts.descriptors,
        ],
        timeout: 10_000,
      });
      if (result.exitCode !== 0) {
        const stderr = result.stderr.toString().trim();
        if (/Unknown option --(ro-)?bind-fd/.test(stderr)) {
          return `${tools.bwrap} has no --bind-fd, which the sandbox needs to mount each directory as the object the server checked (bubblewrap 0.10 or later, or Debian 12's 0.8.0-2+deb12u1): ${stderr}`;
        }
        return `the probe sandbox failed (exit ${result.exitCode}${result.signalCode ? `, ${result.signalCode}` : ''}): ${stderr || 'no message'}`;
      }
      return judgeProbeOutput(result.stdout.toString());
    } catch (error) {
      return `the probe sandbox could not start: ${error instanceof Error ? error.message : String(error)}`;
    } finally {
      mounts.close();
    }
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
  const pool = createSandboxPool({ ...poolSettings, launch: launchSandbox });

  /**
   * Starts the call's interpreter in a sandbox for `argv`: the pooled one of the same key when it is
   * ready (or becomes ready), else one built now. Reports which one through `onStart`.
   */
  const startIn = async (
    plan: readonly PlanArgument[],
    message: Uint8Array,
    timeoutMs: number,
    userId: string,
    onStart: (prebuilt: boolean, sandbox: LaunchedSandbox) => void,
  ): Promise<WrappedShellProcess> => {
    let sandbox: LaunchedSandbox | undefined = pool.take(sandboxKey(plan));
    // The call's own budget starts once it runs; waiting for a pooled sandbox must not outlast it.
    const readyLimit = Math.min(POOLED_READY_LIMIT_MS, timeoutMs);
    // Built ahead, it mounts the objects that were at its paths then: it is handed over only while
    // every source is still that object.
    const prebuilt =
      sandbox !== undefined && (await sandbox.ready(readyLimit)) && mountSourcesUnchanged(sandbox.mounts);
    if (!prebuilt) {
      sandbox?.discard();
      try {
        sandbox = launchSandbox(plan);
      } catch (error) {
        if (error instanceof MountSourceError) throw new ToolError('execution_error', error.message);
        throw error;
      }
    }
    const chosen = sandbox as LaunchedSandbox;
    onStart(prebuilt, chosen);
    if (typeof cgroups !== 'string') {
      await admitSandbox({
        cgroups,
        userId,
        info: await chosen.info(readyLimit),
        exited: chosen.child.exited,
        discard: () => chosen.discard(),
      });
    }
    await chosen.handOver(message);
    return {
      child: chosen.child,
      waitStatus: () => chosen.waitStatus(),
      settle: async () => {
        try {
          await waitForSandboxTeardown(await chosen.info(SETTLE_INFO_LIMIT_MS));
        } finally {
          chosen.release();
        }
      },
    };
  };

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
            startIn(
              plan,
              encodeWaiterMessage(interpreterArguments, environment),
              command.timeoutMs,
              command.userId,
              (value, sandbox) => {
                prebuilt = value;
                launched = sandbox;
              },
            ),
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
