/**
 * The filesystem a sandboxed command sees, as bubblewrap arguments. Pure: the host's layout comes in
 * through `HostLayout`, so the plan is tested without mounting anything.
 *
 * A bind whose source lies where a tenant may change it while the call starts (every root of the
 * reachable set) or that the server created for the sandbox (the synthesized accounts, the covers) is
 * not an argument but a {@link HeldMount}: its source is opened as an object when the sandbox is built
 * and handed to bubblewrap by descriptor (mount-sources.ts), so a name swapped meanwhile cannot send the
 * mount elsewhere. `/usr`, `/bin`, `/lib*` and the `/etc` allowlist are root's own and bound by path.
 *
 * Guarantees:
 * - The reachable set's roots appear at their own absolute paths (so a path a command prints works in
 *   the file tools), read-write only where the set says read-write. A root that vanished since the set
 *   was computed is skipped rather than created.
 * - Protected paths inside a root and the user's denied paths inside the visible area are covered by an
 *   empty, mode-000, read-only file or directory: they exist but cannot be read, listed or written.
 *   A denied path that does not exist is left alone: covering it would create it in a read-write root.
 * - Every directory between a denied path and its root is a mount point of its own (bound onto
 *   itself), so no command can rename or move it, nor the denied path (EBUSY): the denial stays on
 *   the location it names.
 * - System programs: `/usr` read-only; `/bin`, `/sbin`, `/lib*` as the host has them (a symlink into
 *   `/usr` stays a symlink, a real directory is bound read-only). Where a root already contains such
 *   an entry (the operator's `/`), the root shows it as the host has it: bubblewrap cannot make a
 *   symlink where the root's bind put one (merged-`/usr` hosts), and binding an entry onto itself adds
 *   nothing. Likewise the private `HOME` is mounted inside a root only where the host has that
 *   directory, and a root containing `/tmp` shows the host's `/tmp` instead of a private one.
 * - From `/etc` only {@link ETC_ALLOWLIST}, read-only (unless a root contains it, as above), plus a
 *   synthesized `passwd` and `group` that name only root, the sandbox user and nobody.
 * - A fresh `/proc` of the sandbox's PID namespace, a minimal read-only `/dev` (null, zero, full, random,
 *   urandom, tty, pts, and the waiter's script, sandbox-waiter.ts), and size-limited private tmpfs mounts for `/tmp`, `/dev/shm` and the sandbox
 *   `HOME`.
 * - A program's runtime files (the file worker's Bun and its code), read-only by descriptor, when asked.
 * - Nothing else: no data directory, installation directory, server home or other user's workspace,
 *   unless a root contains it (then it is covered when protected).
 *
 * - Everything else, including the sandbox's root directory, is read-only.
 *
 * Mounts are ordered by the depth of their destination, so a shallower mount never hides a deeper one
 * (the operator's `/` root comes first; a root under `/tmp` comes after the private `/tmp`).
 */
import { dirname, sep } from 'node:path';
import { isPathInside, type ReachableSet } from '../tools/access/reachable-set.ts';
import { WAITER_PATH } from './sandbox-waiter.ts';

/** The files under `/etc` a command may read; each is bound read-only when the host has it. */
export const ETC_ALLOWLIST: readonly string[] = [
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/host.conf',
  '/etc/nsswitch.conf',
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
  '/etc/ca-certificates.conf',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/localtime',
  '/etc/timezone',
  '/etc/alternatives',
];

/** Top-level system entries: a symlink stays one, a real directory is bound read-only. */
export const SYSTEM_LINK_DIRECTORIES: readonly string[] = [
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
];

/**
 * The host's system directories a sandbox shows a program from, at their own paths: `/usr`, and each of
 * {@link SYSTEM_LINK_DIRECTORIES} the host has (a symlink into `/usr` stays one, a directory is bound).
 * Beside these a sandbox shows only its reachable set and the few files of `/etc` and `/dev`.
 */
export function systemProgramDirectories(host: HostLayout): string[] {
  return ['/usr', ...SYSTEM_LINK_DIRECTORIES.filter((path) => host.kind(path) !== 'missing')];
}

export type HostEntryKind = 'directory' | 'file' | 'symlink' | 'missing';

/** A bind whose source is opened as an object and handed to bubblewrap by descriptor (mount-sources.ts). */
export interface HeldMount {
  /** Absolute real path of the source: opened with no link allowed on any component. */
  source: string;
  destination: string;
  readOnly: boolean;
  /** False: a source that is missing is left out (a root that vanished since the set was computed). */
  required: boolean;
  /** What the source must be. */
  kind: 'directory' | 'file';
  /**
   * True for a cover: the destination is a host path inside a root that this mount hides, so the
   * object there is recorded as well (a file renamed over it would otherwise show through a sandbox
   * built before).
   */
  covers: boolean;
}

/** One element of a plan: a literal bubblewrap argument, or a bind by object. */
export type PlanArgument = string | HeldMount;

/**
 * The plan as text, each held mount shown as `--bind-fd`/`--ro-bind-fd` (with `-try` when optional),
 * its source path and its destination: for the pool key, messages and tests, never for bubblewrap.
 */
export function describePlan(plan: readonly PlanArgument[]): string[] {
  return plan.flatMap((argument) =>
    typeof argument === 'string'
      ? [argument]
      : [
          `${argument.readOnly ? '--ro-bind-fd' : '--bind-fd'}${argument.required ? '' : '-try'}`,
          argument.source,
          argument.destination,
        ],
  );
}

/** What the plan needs to know about the host. */
export interface HostLayout {
  /** The kind of the entry at `path`, without following a final symlink. */
  kind(path: string): HostEntryKind;
  /** The target of the symlink at `path`. */
  readLink(path: string): string;
}

export interface MountPlanInput {
  reachable: ReachableSet;
  /** Real path of the working directory. */
  cwd: string;
  /** Real paths the user denied. */
  deniedPaths: readonly string[];
  /** The sandbox's private home (a tmpfs). */
  home: string;
  /** Host paths of the synthesized files and the covers (see sandbox-state-directory.ts). */
  files: { passwd: string; group: string; waiter: string; emptyFile: string; emptyDirectory: string };
  /** Byte limits of the private tmpfs mounts. */
  tmpBytes: number;
  homeBytes: number;
  shmBytes: number;
  /** Host files a program runs on, read-only at their destinations (`SandboxedProgram.runtimeFiles`). */
  runtimeFiles?: readonly { source: string; destination: string }[];
}

interface MountOperation {
  destination: string;
  arguments: PlanArgument[];
}

function held(source: string, destination: string, kind: HeldMount['kind'], covers = false): HeldMount {
  return { source, destination, readOnly: true, required: true, kind, covers };
}

function depthOf(path: string): number {
  return path === sep ? 0 : path.split(sep).length - 1;
}

function systemOperations(input: MountPlanInput, host: HostLayout): MountOperation[] {
  const operations: MountOperation[] = [{ destination: '/usr', arguments: ['--ro-bind', '/usr', '/usr'] }];
  const shownByRoot = (path: string) => input.reachable.roots.some((root) => isPathInside(path, root.path));
  for (const path of SYSTEM_LINK_DIRECTORIES) {
    if (shownByRoot(path)) continue;
    const kind = host.kind(path);
    if (kind === 'symlink') {
      operations.push({ destination: path, arguments: ['--symlink', host.readLink(path), path] });
    } else if (kind === 'directory') {
      operations.push({ destination: path, arguments: ['--ro-bind', path, path] });
    }
  }
  for (const path of ETC_ALLOWLIST) {
    if (!shownByRoot(path) && host.kind(path) !== 'missing') {
      operations.push({ destination: path, arguments: ['--ro-bind-try', path, path] });
    }
  }
  operations.push(
    { destination: '/etc/passwd', arguments: [held(input.files.passwd, '/etc/passwd', 'file')] },
    { destination: '/etc/group', arguments: [held(input.files.group, '/etc/group', 'file')] },
    { destination: '/proc', arguments: ['--proc', '/proc'] },
    { destination: '/dev', arguments: ['--dev', '/dev'] },
    { destination: WAITER_PATH, arguments: [held(input.files.waiter, WAITER_PATH, 'file')] },
    // bubblewrap's /dev is an unbounded tmpfs: /dev/shm gets a bounded one and /dev itself is made
    // read-only at the end, so neither can fill memory.
    {
      destination: '/dev/shm',
      arguments: ['--size', String(input.shmBytes), '--perms', '1777', '--tmpfs', '/dev/shm'],
    },
  );
  for (const file of input.runtimeFiles ?? []) {
    operations.push({
      destination: file.destination,
      arguments: [held(file.source, file.destination, 'file')],
    });
  }
  // A root that contains /tmp (the operator's `/`) shows the host's own, so a working directory there
  // (`mango tool call --cwd /tmp/x`) exists in the sandbox; every other sandbox gets a private one.
  if (!shownByRoot('/tmp')) {
    operations.push({
      destination: '/tmp',
      arguments: ['--size', String(input.tmpBytes), '--perms', '1777', '--tmpfs', '/tmp'],
    });
  }
  // Inside a root (the operator's `/`) a missing home would be created on the host itself by the
  // mount, or refused: the sandbox then has no home directory rather than writing one into the host.
  if (!(shownByRoot(input.home) && host.kind(input.home) !== 'directory')) {
    operations.push({
      destination: input.home,
      arguments: ['--size', String(input.homeBytes), '--perms', '0700', '--tmpfs', input.home],
    });
  }
  return operations;
}

function rootOperations(input: MountPlanInput): MountOperation[] {
  const cwdRoots = input.reachable.roots.filter((root) => isPathInside(input.cwd, root.path));
  return input.reachable.roots.map((root) => {
    // The working directory's root must exist (the command starts there); others may have vanished.
    const mount: HeldMount = {
      source: root.path,
      destination: root.path,
      readOnly: root.access !== 'read-write',
      required: cwdRoots.includes(root),
      kind: 'directory',
      covers: false,
    };
    return { destination: root.path, arguments: [mount] };
  });
}

/** Protected paths strictly inside a root, and denied paths inside the visible area, that exist. */
function coveredPaths(input: MountPlanInput, host: HostLayout): string[] {
  const { roots, protectedPaths } = input.reachable;
  const insideSomeRoot = (path: string) => roots.some((root) => isPathInside(path, root.path));
  const covered = new Set<string>();
  for (const path of protectedPaths) {
    if (roots.some((root) => isPathInside(path, root.path) && path !== root.path)) covered.add(path);
  }
  for (const path of input.deniedPaths) {
    if (insideSomeRoot(path) || isPathInside(path, input.home) || isPathInside(path, '/tmp'))
      covered.add(path);
  }
  // The sandbox mounts a fresh /proc and /dev of its own; covering them would break every program.
  covered.delete('/proc');
  covered.delete('/dev');
  return [...covered].filter((path) => {
    const kind = host.kind(path);
    return kind === 'directory' || kind === 'file';
  });
}

function coverOperations(input: MountPlanInput, host: HostLayout): MountOperation[] {
  return coveredPaths(input, host).map((path) => ({
    destination: path,
    arguments: [
      host.kind(path) === 'directory'
        ? held(input.files.emptyDirectory, path, 'directory', true)
        : held(input.files.emptyFile, path, 'file', true),
    ],
  }));
}

/**
 * Every directory strictly between a denied path's root and the denied path, bound onto itself with
 * the root's access. A mount point cannot be renamed or moved (EBUSY), so no command can move a denied
 * location out from under its name (`mv proj proj2` with `proj/vault` denied), where neither the
 * shell's next cover nor the file tools' check by path would find it again. The denied path itself is
 * a cover, a mount point as well.
 */
function anchorOperations(input: MountPlanInput, host: HostLayout): MountOperation[] {
  const covered = new Set(coveredPaths(input, host));
  const anchors = new Map<string, boolean>();
  for (const path of input.deniedPaths) {
    if (!covered.has(path)) continue;
    const root = input.reachable.roots
      .filter((candidate) => isPathInside(path, candidate.path))
      .sort((a, b) => b.path.length - a.path.length)[0];
    if (!root) continue;
    let ancestor = dirname(path);
    while (ancestor !== root.path && isPathInside(ancestor, root.path) && !anchors.has(ancestor)) {
      anchors.set(ancestor, root.access !== 'read-write');
      ancestor = dirname(ancestor);
    }
  }
  return [...anchors].map(([path, readOnly]) => ({
    destination: path,
    arguments: [
      { source: path, destination: path, readOnly, required: true, kind: 'directory', covers: false },
    ],
  }));
}

/** The bubblewrap arguments that build the filesystem, in mount order, then `--chdir`. */
export function buildMountPlan(input: MountPlanInput, host: HostLayout): PlanArgument[] {
  const operations = [
    ...systemOperations(input, host),
    ...rootOperations(input),
    ...anchorOperations(input, host),
    ...coverOperations(input, host),
  ];
  // Stable: equal depths keep system < roots < anchors < covers, so a cover always lands on top of its
  // root, and an anchor between them.
  const ordered = operations
    .map((operation, index) => ({ operation, index, depth: depthOf(operation.destination) }))
    .sort((a, b) => a.depth - b.depth || a.index - b.index)
    .map((entry) => entry.operation);
  // The sandbox's own root directory (a tmpfs holding the mount points) is made read-only last, so a
  // write anywhere but the read-write roots, /tmp and HOME fails instead of vanishing silently.
  // A root at / itself (operator mode) keeps its own access.
  const rootIsReachable = input.reachable.roots.some((root) => root.path === sep);
  return [
    ...ordered.flatMap((operation) => operation.arguments),
    ...(rootIsReachable ? [] : ['--remount-ro', '/']),
    '--remount-ro',
    '/dev',
    '--chdir',
    input.cwd,
  ];
}
