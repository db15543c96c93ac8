/**
 * The argument vector of one sandbox, from the call's plan: limits (`prlimit`), the drop to the call's
 * uid, gid and groups (`setpriv`, when the server is root), bubblewrap with every namespace unshared and the mount plan of
 * bubblewrap-mount-plan.ts, then the waiter (sandbox-waiter.ts). Pure but for the host layout it is
 * given, so the same plan always gives the same vector: that vector is what the warm pool keys on
 * (sandbox-pool.ts). It holds no command and no environment; those reach the sandbox at the call.
 * Binds by object stay held mounts (bubblewrap-mount-plan.ts) here; mount-sources.ts opens them when the sandbox is built.
 * Their descriptors follow the fixed ones: {@link MOUNT_DESCRIPTORS_FROM} for a command's sandbox,
 * {@link PROGRAM_MOUNT_DESCRIPTORS_FROM} for a program's.
 *
 * A long-running program (an MCP server on stdio) gets the same sandbox with the program launcher
 * (sandbox-program-launcher.ts) in place of the waiter, bubblewrap's info on descriptor 3 (its stdin is the
 * program's), and the server's network only when asked for.
 */
import { accessSync, constants } from 'node:fs';
import { defaultOf } from '../config/environment-variables.ts';
import { buildMountPlan, type HostLayout, type PlanArgument } from './bubblewrap-mount-plan.ts';
import { programLauncherArguments } from './sandbox-program-launcher.ts';
import type { SandboxIdentity, SandboxStateDirectory } from './sandbox-state-directory.ts';
import { waiterArguments } from './sandbox-waiter.ts';
import type { SandboxedCommand, SandboxedProgram } from './shell-sandbox.ts';

/** A command's sandbox: 0–2 the call's stdio, 3 the waiter's records, 4 bubblewrap's info, then mounts. */
export const MOUNT_DESCRIPTORS_FROM = 5;
/** A program's sandbox: 0–2 the program's stdio, 3 bubblewrap's info, then mounts. */
export const PROGRAM_MOUNT_DESCRIPTORS_FROM = 4;

export interface SandboxLimits {
  /**
   * RLIMIT_NPROC of the uid a call runs as: processes it may have at once, across its sandboxes (one
   * user's, when each user has a uid; every user's when the server is not root).
   */
  processes: number;
  /**
   * Processes one Mango user's commands may have at once, all their sandboxes together, where the
   * host has a pids cgroup the server can use (user-process-cgroups.ts); below `processes`, so one
   * user cannot take every slot of the shared limit.
   */
  userProcesses: number;
  /**
   * Memory one Mango user's sandboxes may hold together, bytes, where the host has a memory cgroup the
   * server can use (user-memory-cgroups.ts); without one, `addressSpaceBytes` and the tmpfs sizes are
   * the only bounds.
   */
  userMemoryBytes: number;
  /** RLIMIT_AS per process, bytes. */
  addressSpaceBytes: number;
  /** RLIMIT_FSIZE: the largest file a command may write, bytes. */
  fileBytes: number;
  /** Size of the private `/tmp`, bytes. */
  tmpBytes: number;
  /** Size of the private `HOME`, bytes. */
  homeBytes: number;
  /** Size of the private `/dev/shm`, bytes. */
  shmBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = {
  processes: 1024,
  userProcesses: 512,
  userMemoryBytes: defaultOf('MANGO_SANDBOX_USER_MEMORY'),
  addressSpaceBytes: 8 * 1024 ** 3,
  fileBytes: 1024 ** 3,
  tmpBytes: 512 * 1024 ** 2,
  homeBytes: 128 * 1024 ** 2,
  shmBytes: 64 * 1024 ** 2,
};

export interface SandboxPrograms {
  bwrap: string;
  setpriv: string;
  prlimit: string;
  /** The waiter's interpreter (sandbox-waiter.ts); it must lie in `/usr`, which every sandbox mounts. */
  perl: string;
}

export interface SandboxArgumentsInput {
  programs: SandboxPrograms;
  identity: SandboxIdentity;
  limits: SandboxLimits;
  /** True when the server is root and must drop to the sandbox uid first. */
  dropsPrivilege: boolean;
  files: Pick<SandboxStateDirectory, 'waiter' | 'emptyFile' | 'emptyDirectory'> & {
    passwd: string;
    group: string;
  };
  command: Pick<SandboxedCommand, 'reachable' | 'cwd' | 'deniedPaths'>;
  host: HostLayout;
  /** The start-up probe: run synchronously, without bubblewrap's info descriptor. */
  probing?: boolean;
  /** A long-running program to run behind the program launcher instead of the waiter (see the module header). */
  program?: Pick<SandboxedProgram, 'argv' | 'network' | 'runtimeFiles'>;
}

/** The whole argument vector of one sandbox, ending with the waiter. */
export function sandboxArguments(input: SandboxArgumentsInput): PlanArgument[] {
  const { programs, identity, limits, command, program } = input;
  return [
    programs.prlimit,
    `--nproc=${limits.processes}`,
    `--as=${limits.addressSpaceBytes}`,
    `--fsize=${limits.fileBytes}`,
    '--',
    ...(input.dropsPrivilege
      ? [
          programs.setpriv,
          `--reuid=${identity.uid}`,
          `--regid=${identity.gid}`,
          // The sandbox group (it passes the workspaces directory) and the reached grants' groups;
          // none of root's own.
          identity.groups.length > 0 ? `--groups=${identity.groups.join(',')}` : '--clear-groups',
          '--no-new-privs',
          '--inh-caps=-all',
          '--bounding-set=-all',
          '--',
        ]
      : []),
    programs.bwrap,
    '--unshare-all',
    ...(program?.network === 'host' ? ['--share-net'] : []),
    '--unshare-user',
    '--disable-userns',
    '--die-with-parent',
    '--new-session',
    '--as-pid-1',
    '--cap-drop',
    'ALL',
    '--uid',
    String(identity.uid),
    '--gid',
    String(identity.gid),
    '--hostname',
    'sandbox',
    // The probe runs synchronously and has no descriptor 4; it has nothing left to wait for anyway.
    ...(input.probing ? [] : ['--info-fd', program ? '3' : '4']),
    ...buildMountPlan(
      {
        reachable: command.reachable,
        cwd: command.cwd,
        deniedPaths: command.deniedPaths,
        home: identity.home,
        files: input.files,
        tmpBytes: limits.tmpBytes,
        homeBytes: limits.homeBytes,
        shmBytes: limits.shmBytes,
        runtimeFiles: program?.runtimeFiles ?? [],
      },
      input.host,
    ),
    '--',
    ...(program ? programLauncherArguments(programs.perl, program.argv) : waiterArguments(programs.perl)),
  ];
}

function isExecutable(path: string | null | undefined): path is string {
  if (!path) return false;
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The programs a sandbox needs, found on PATH (or as given), or why one is missing. */
export function findPrograms(given: Partial<SandboxPrograms> | undefined): SandboxPrograms | string {
  const bwrap = given?.bwrap ?? Bun.which('bwrap');
  const setpriv = given?.setpriv ?? Bun.which('setpriv');
  const prlimit = given?.prlimit ?? Bun.which('prlimit');
  const perl = given?.perl ?? '/usr/bin/perl';
  if (!isExecutable(bwrap)) return 'bubblewrap (bwrap) is not installed; install the "bubblewrap" package.';
  if (!isExecutable(setpriv)) return 'setpriv is not installed; install "util-linux".';
  if (!isExecutable(prlimit)) return 'prlimit is not installed; install "util-linux".';
  if (!perl.startsWith('/usr/') || !isExecutable(perl)) {
    return `Perl is not installed at ${perl} (it must lie in /usr); install "perl-base".`;
  }
  return { bwrap, setpriv, prlimit, perl };
}
