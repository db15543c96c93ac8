/**
 * The range of ids sandboxed commands run in when the server is root (`MANGO_SANDBOX_UID_BASE`,
 * `MANGO_SANDBOX_UID_COUNT`). The base itself is the sandbox group: every sandbox process carries it,
 * and the workspaces directory is `0710` root and that group, so sandbox uids can pass it and no other
 * host account can. Every id above it, up to `base + count - 1`, goes to one owner for good: a user (their
 * uid, and a gid of the same number) or a directory granted to users (its group). An id is never given
 * to a second owner, so nothing a deleted user left behind (a file, a setuid binary) ever belongs to
 * somebody else.
 *
 * The default base, 1 900 000 000, lies in the part of the 32-bit id space that systemd leaves unused
 * (above its container ranges at 524288–1879048191, below the ids with bit 31 set, which some tools
 * treat as negative), and far above the ranges `useradd` hands out in `/etc/subuid` (from 100000, 65536
 * each). The start-up check ({@link rangeConflicts}) still reads the host's account files and refuses a
 * range that shares an id with any of them.
 */
import { defaultOf } from '../config/environment-variables.ts';

export interface SandboxIdRange {
  /** The sandbox group's gid; users' and grants' ids follow it. */
  base: number;
  /** Ids in the range, the group's included. */
  count: number;
}

export const DEFAULT_SANDBOX_ID_RANGE: SandboxIdRange = {
  base: defaultOf('MANGO_SANDBOX_UID_BASE'),
  count: defaultOf('MANGO_SANDBOX_UID_COUNT'),
};

/** The largest id the range may reach: ids are stored as 32-bit signed integers (and some tools print them so). */
export const MAX_SANDBOX_ID = 2_147_483_646;

/** The first id handed to an owner. */
export function firstOwnerId(range: SandboxIdRange): number {
  return range.base + 1;
}

/** The last id handed to an owner. */
export function lastOwnerId(range: SandboxIdRange): number {
  return range.base + range.count - 1;
}

/** Whether `id` lies in the range (the group's id included). */
export function inSandboxIdRange(range: SandboxIdRange, id: number): boolean {
  return id >= range.base && id <= lastOwnerId(range);
}

/** Why the range cannot be used as such, or undefined. Pure. */
export function rangeProblem(range: SandboxIdRange): string | undefined {
  if (lastOwnerId(range) > MAX_SANDBOX_ID) {
    return `MANGO_SANDBOX_UID_BASE=${range.base} with MANGO_SANDBOX_UID_COUNT=${range.count} ends at ${lastOwnerId(range)}, above ${MAX_SANDBOX_ID}; lower one of them.`;
  }
  return undefined;
}

/** One id the host already uses, as read from its account files. */
export interface HostIdUse {
  /** The file it was read from, e.g. `/etc/passwd`. */
  file: string;
  /** Its line, for the message. */
  name: string;
  from: number;
  /** Inclusive. */
  to: number;
}

/**
 * The ids the host's account files use: uids and gids of `/etc/passwd` and `/etc/group`, and the
 * subordinate ranges of `/etc/subuid` and `/etc/subgid` (another account's user namespaces map them,
 * so a sandbox id inside one would be reachable from there). Pure: `texts` maps a file to its content
 * (absent files are left out).
 */
export function hostIdUses(texts: Readonly<Record<string, string>>): HostIdUse[] {
  const uses: HostIdUse[] = [];
  for (const [file, text] of Object.entries(texts)) {
    for (const line of text.split('\n')) {
      if (line.trim() === '' || line.startsWith('#')) continue;
      const fields = line.split(':');
      const name = fields[0] ?? '';
      if (file.endsWith('passwd')) {
        const ids = new Set(
          [fields[2], fields[3]].filter((field) => field !== undefined && /^\d+$/.test(field)),
        );
        for (const field of ids) uses.push({ file, name, from: Number(field), to: Number(field) });
      } else if (file.endsWith('group')) {
        const field = fields[2];
        if (field !== undefined && /^\d+$/.test(field)) {
          uses.push({ file, name, from: Number(field), to: Number(field) });
        }
      } else {
        const [start, size] = [fields[1], fields[2]];
        if (start !== undefined && size !== undefined && /^\d+$/.test(start) && /^\d+$/.test(size)) {
          uses.push({ file, name, from: Number(start), to: Number(start) + Number(size) - 1 });
        }
      }
    }
  }
  return uses;
}

/** The host's uses of ids that fall in the range, each as one sentence. Pure. */
export function rangeConflicts(range: SandboxIdRange, uses: readonly HostIdUse[]): string[] {
  const last = lastOwnerId(range);
  return uses
    .filter((use) => use.from <= last && use.to >= range.base)
    .map((use) =>
      use.from === use.to
        ? `${use.file} gives id ${use.from} to "${use.name}"`
        : `${use.file} gives ids ${use.from}–${use.to} to "${use.name}"`,
    );
}
