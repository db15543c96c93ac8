/**
 * Whether one user's sandboxed commands can reach a granted directory, decided from the modes and
 * owners the kernel checks. bubblewrap resolves each mount source by name as the call's uid, so every
 * directory above a grant must let that uid through (search, `x`) and the grant itself must let it
 * list and enter it (`r-x`), and write it too for a read-write grant (`rwx`); otherwise the call fails
 * before any command runs. Checking this when the grant is made turns that later failure into a
 * refusal that says what to change.
 *
 * Guarantees:
 * - The kernel's order decides which bits apply: the owner's when the uid owns the directory, else the
 *   group's when the directory's group is the gid or one of the groups, else the others'. A class that
 *   lacks a bit fails even when another class has it, exactly as the kernel does.
 * - Every component is `lstat`ed, never followed: a component that is a link now (the path was resolved
 *   to its real path a moment earlier) is reported as such, not judged through its target.
 * - The first directory that fails is the one reported, from `/` down; the reasons name it, its mode,
 *   its owner and group, who must pass, and the command that lets them. ACLs are not read: the mode's
 *   group bits are judged as the owning group's.
 */
import { lstatSync } from 'node:fs';
import { dirname } from 'node:path';

export type GrantAccess = 'read-only' | 'read-write';

/** Who a user's sandboxed processes are, as far as the kernel's permission check goes. */
export interface SandboxCaller {
  uid: number;
  gid: number;
  /** Supplementary groups: the sandbox group and the grant's group. */
  groups: readonly number[];
}

/** What the check reads of one directory (`lstat`'s answer). */
export interface DirectoryStats {
  mode: number;
  uid: number;
  gid: number;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** The class of a mode's bits that applies to a caller. */
export type PermissionClass = 'owner' | 'group' | 'other';

export type GrantReachProblem =
  | {
      kind: 'permission';
      /** The first directory on the way that fails. */
      directory: string;
      /** An ancestor needs `x`; the granted directory `r-x` or `rwx`. */
      role: 'ancestor' | 'granted';
      mode: number;
      owner: number;
      group: number;
      applies: PermissionClass;
      /** What it must allow, as `ls` shows it: `--x`, `r-x` or `rwx`. */
      needs: string;
    }
  | {
      kind: 'changed';
      directory: string;
      /** What is there now instead of a directory. */
      found: 'a symbolic link' | 'not a directory' | 'nothing';
    };

/** The directories from `/` down to the parent of `path` (a real, absolute path). */
export function ancestorsOf(path: string): string[] {
  const ancestors: string[] = [];
  for (let current = dirname(path); ; current = dirname(current)) {
    ancestors.unshift(current);
    if (current === '/') return ancestors;
  }
}

export function permissionClass(
  stats: Pick<DirectoryStats, 'uid' | 'gid'>,
  caller: SandboxCaller,
): PermissionClass {
  if (stats.uid === caller.uid) return 'owner';
  if (stats.gid === caller.gid || caller.groups.includes(stats.gid)) return 'group';
  return 'other';
}

const SHIFT: Record<PermissionClass, number> = { owner: 6, group: 3, other: 0 };

/** The `rwx` bits (4, 2, 1) the applicable class grants. */
function grantedBits(stats: DirectoryStats, caller: SandboxCaller): number {
  return (stats.mode >> SHIFT[permissionClass(stats, caller)]) & 0o7;
}

function bitsText(bits: number): string {
  return `${bits & 4 ? 'r' : '-'}${bits & 2 ? 'w' : '-'}${bits & 1 ? 'x' : '-'}`;
}

/** The bits a grant needs of its own directory. */
export function grantNeeds(access: GrantAccess): number {
  return access === 'read-write' ? 0o7 : 0o5;
}

/**
 * The first directory on the way to `path` (a real path) that `caller` cannot use as the grant needs,
 * or undefined when it can reach it. `stat` is `lstat` (injectable for tests).
 */
export function findGrantReachProblem(
  path: string,
  caller: SandboxCaller,
  access: GrantAccess,
  stat: (path: string) => DirectoryStats = lstatSync,
): GrantReachProblem | undefined {
  const steps: { directory: string; role: 'ancestor' | 'granted'; needs: number }[] = [
    ...ancestorsOf(path).map((directory) => ({ directory, role: 'ancestor' as const, needs: 0o1 })),
    { directory: path, role: 'granted', needs: grantNeeds(access) },
  ];
  for (const step of steps) {
    let stats: DirectoryStats;
    try {
      stats = stat(step.directory);
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
      return { kind: 'changed', directory: step.directory, found: 'nothing' };
    }
    if (stats.isSymbolicLink())
      return { kind: 'changed', directory: step.directory, found: 'a symbolic link' };
    if (!stats.isDirectory()) return { kind: 'changed', directory: step.directory, found: 'not a directory' };
    if ((grantedBits(stats, caller) & step.needs) !== step.needs) {
      return {
        kind: 'permission',
        directory: step.directory,
        role: step.role,
        mode: stats.mode & 0o7777,
        owner: stats.uid,
        group: stats.gid,
        applies: permissionClass(stats, caller),
        needs: bitsText(step.needs),
      };
    }
  }
  return undefined;
}

/** `path` as one word of a POSIX shell command, quoted only when it needs to be. */
function shellWord(path: string): string {
  return /^[A-Za-z0-9_./+:@%,=-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}

function octal(mode: number): string {
  return mode.toString(8).padStart(4, '0');
}

const CLASS_LETTER: Record<PermissionClass, string> = { owner: 'u', group: 'g', other: 'o' };

const CLASS_NAME: Record<PermissionClass, string> = {
  owner: "its owner's bits apply, as the uid owns it",
  group: "its group's bits apply, as the group is one of theirs",
  other: "the others' bits apply",
};

/**
 * Why the grant is refused, for `problem` found for `caller` (the sentence after "Cannot grant DIR: ").
 * `grantGroup` is the group the fix gives the granted directory.
 */
export function describeGrantReachProblem(
  problem: GrantReachProblem,
  caller: SandboxCaller,
  grantGroup: number,
  access: GrantAccess,
): string {
  if (problem.kind === 'changed') {
    return `${problem.directory} is ${problem.found} now, though the path resolved through it a moment ago; check what changed it and run the command again.`;
  }
  const who = `the user's commands run as uid ${caller.uid} (gid ${caller.gid}, groups ${caller.groups.join(', ')})`;
  const shown = shellWord(problem.directory);
  const found = `${problem.directory} (mode ${octal(problem.mode)}, owner ${problem.owner}:${problem.group}; ${CLASS_NAME[problem.applies]})`;
  if (problem.role === 'ancestor') {
    return (
      `${who} and cannot pass ${found}: every directory above a grant must let them through (--x). ` +
      `Let them pass: \`chmod ${CLASS_LETTER[problem.applies]}+x ${shown}\` ` +
      '(--fix-owner changes only the granted directory, never the directories above it).'
    );
  }
  const doing = access === 'read-write' ? 'read, write and enter' : 'read and enter';
  const cannot = `${who} and cannot ${doing} ${found}, which a ${access} grant needs (${problem.needs}).`;
  if (problem.applies === 'owner') {
    return `${cannot} Give its owner access: \`chmod u+${access === 'read-write' ? 'rwx' : 'rx'} ${shown}\`.`;
  }
  const bits = access === 'read-write' ? 'g+rwX' : 'g+rX';
  return (
    `${cannot} Give the grant's group access: \`chgrp -R ${grantGroup} ${shown} && chmod -R ${bits} ${shown} && ` +
    `find ${shown} -type d -exec chmod g+s {} +\`, or run again with --fix-owner.`
  );
}
