/**
 * What the shell sandbox needs of a grant before it is stored (the workspace service asks through
 * contracts/grant-preparation.ts): the granted directory gets a group of its own from the sandbox
 * range, for good, which every user it is granted to carries in their sandbox (sandbox-users.ts); and
 * when each user's commands run as a uid of their own (the process is root and the sandbox is on), the
 * grant is refused unless that uid, with the sandbox group and the grant's group, can reach the
 * directory (grant-reach-problem.ts). With `fixOwner` the directory itself is first given to the
 * grant's group (give-grant-to-group.ts); the directories above it are never changed, only named.
 *
 * The settings are read at each grant, so a misconfigured range refuses the grant that needs it with
 * the variable's message, and nothing else.
 */

import type { Environment } from '../config/environment-variables.ts';
import type { GrantPreparation, GrantPreparationOutcome } from '../contracts/grant-preparation.ts';
import { type GrantGroupChange, giveGrantToGroup } from './give-grant-to-group.ts';
import {
  describeGrantReachProblem,
  findGrantReachProblem,
  type GrantAccess,
  type GrantReachProblem,
  type SandboxCaller,
} from './grant-reach-problem.ts';
import { lastOwnerId, type SandboxIdRange } from './sandbox-id-range.ts';
import { SandboxIdRangeFullError, type SandboxIdRepository } from './sandbox-id-repository.ts';
import { readShellSandboxConfig, type ShellSandboxConfig } from './shell-sandbox-config.ts';

export interface SandboxGrantPreparationOptions {
  /** Where the ids are kept (the database's `sandbox_ids`, the server's own). */
  ids: SandboxIdRepository;
  /** This process's uid (default `process.getuid()`); injectable to test the decision. */
  processUid?: number;
  now?: () => number;
}

/** How many names of skipped entries a note lists before it counts the rest. */
const LISTED_NAMES = 10;

/** Why no uid of a user's own applies to what this process grants, or undefined when one does. */
function sharedUidReason(config: ShellSandboxConfig, processUid: number): string | undefined {
  if (config.mode === 'off') return "MANGO_SHELL_SANDBOX=off runs commands as the server's own uid";
  if (processUid !== 0) {
    return `this command runs as uid ${processUid}, not root, so commands run as its own uid (run it as the server's user, root, for a uid per user)`;
  }
  return undefined;
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function listed(names: readonly string[]): string {
  const shown = names.slice(0, LISTED_NAMES).join(', ');
  return names.length > LISTED_NAMES ? `${shown} and ${names.length - LISTED_NAMES} more` : shown;
}

/** The operator's lines about what `--fix-owner` changed and left. */
export function describeGrantGroupChange(
  path: string,
  group: number,
  access: GrantAccess,
  change: GrantGroupChange,
): string[] {
  const bits = access === 'read-write' ? 'rwx on directories, rw on files' : 'r-x on directories, r on files';
  const notes = [
    `Gave ${path} to group ${group}: ${plural(change.directories, 'directory', 'directories')} and ${plural(change.files, 'file', 'files')} (group ${bits}, x on files only where the owner has it; setgid on directories; owners unchanged).`,
  ];
  if (change.hardLinked.length > 0) {
    notes.push(
      `Left ${plural(change.hardLinked.length, 'file', 'files')} with more than one hard link as ${change.hardLinked.length === 1 ? 'it was' : 'they were'} (another link may lie outside ${path}, and a change would reach it there too): ${listed(change.hardLinked)}.`,
    );
  }
  if (change.otherFilesystems.length > 0) {
    notes.push(
      `Left ${plural(change.otherFilesystems.length, 'entry', 'entries')} on another filesystem as ${change.otherFilesystems.length === 1 ? 'it was' : 'they were'} (not entered): ${listed(change.otherFilesystems)}.`,
    );
  }
  return notes;
}

function rangeFull(range: SandboxIdRange, what: string): string {
  return `every id of the sandbox range ${range.base}–${lastOwnerId(range)} is taken, so ${what}; raise MANGO_SANDBOX_UID_COUNT (ids are never reused).`;
}

export function createSandboxGrantPreparation(
  environment: Environment,
  options: SandboxGrantPreparationOptions,
): GrantPreparation {
  const { ids } = options;
  const now = options.now ?? Date.now;
  return async (request): Promise<GrantPreparationOutcome> => {
    let config: ShellSandboxConfig;
    try {
      config = readShellSandboxConfig(environment);
    } catch (error) {
      return { refusal: `the shell sandbox settings cannot be read: ${(error as Error).message}`, notes: [] };
    }
    const at = new Date(now()).toISOString();
    const access: GrantAccess = request.readOnly ? 'read-only' : 'read-write';
    const shared = sharedUidReason(config, options.processUid ?? process.getuid?.() ?? -1);
    const allocate = async (kind: 'grant' | 'user', owner: string, what: string) => {
      try {
        return await ids.allocate(kind, owner, config.range, at);
      } catch (error) {
        if (error instanceof SandboxIdRangeFullError) return rangeFull(config.range, what);
        throw error;
      }
    };
    const group = await allocate('grant', request.path, 'the directory cannot get a group of its own');
    if (typeof group === 'string') return { refusal: group, notes: [] };
    const uid =
      shared === undefined ? await allocate('user', request.userId, 'the user has no uid') : undefined;
    if (typeof uid === 'string') return { refusal: uid, notes: [] };
    if (uid === undefined) {
      if (!request.fixOwner) return { notes: [] };
      return {
        refusal: `--fix-owner gives the directory to the grant's group (${group}), which only the sandbox's per-user uids carry, and ${shared}.`,
        notes: [],
      };
    }
    const caller: SandboxCaller = { uid, gid: uid, groups: [config.range.base, group] };
    const refusal = (problem: GrantReachProblem) => describeGrantReachProblem(problem, caller, group, access);
    const before = findGrantReachProblem(request.path, caller, access);
    // Refused before anything changes: the fix never touches what lies above the grant, a path that
    // changed under the check is not one to change, and without the fix there is nothing to try.
    if (
      before !== undefined &&
      (before.kind === 'changed' || before.role === 'ancestor' || !request.fixOwner)
    ) {
      return { refusal: refusal(before), notes: [] };
    }
    if (!request.fixOwner) return { notes: [] };
    const notes = describeGrantGroupChange(
      request.path,
      group,
      access,
      giveGrantToGroup(request.path, group, access),
    );
    const after = findGrantReachProblem(request.path, caller, access);
    if (after === undefined) return { notes };
    return { refusal: `${refusal(after)} (${notes.join(' ')})`, notes };
  };
}
