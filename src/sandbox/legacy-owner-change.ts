/**
 * What `mango workspace migrate-owners` does to one entry, decided from what `fstat` said about it:
 * the rules that give a tree of the one uid of earlier versions (`MANGO_SANDBOX_UID`) to the uids of
 * today. Pure, so the walk (migrate-tree-owners.ts) only gathers facts and applies the answer, and a
 * dry run reports exactly what a real run would do.
 *
 * - A personal tree (a user's workspace, their stdio MCP servers' state): entries of the legacy uid or
 *   of root (the server wrote those as root) go to the user's uid and gid; the tree's root becomes 0700.
 * - A granted tree: entries of the legacy uid go to the grant's owner (its one user, or root when
 *   several users hold it) and the grant's group, with group bits copied from the owner bits so every
 *   granted user keeps what the shared uid allowed; directories get setgid, so new entries inherit the
 *   group. Root's and anybody else's entries stay as they are: the operator made them so.
 * - A regular file given away loses its setuid and setgid bits: a setuid file a tenant left must
 *   never keep a privilege, least of all one that now belongs to root.
 * - A non-directory with more than one link is left as it is (its other names may be another
 *   tenant's, hard-linked in while all tenants shared a uid) and reported; a regular file of the legacy
 *   uid among them still loses setuid and setgid (nobody runs as that uid any more). A device node is
 *   left and reported: no tenant could have made one, and giving it to a user would hand them the
 *   device.
 * - Anything already given away, or owned by somebody else, is kept: a second run changes nothing.
 */

export type EntryType = 'directory' | 'file' | 'symlink' | 'device' | 'other';

/** What `fstat` said about an entry. */
export interface EntryFacts {
  type: EntryType;
  uid: number;
  gid: number;
  /** Permission and setuid, setgid, sticky bits (`st_mode & 0o7777`). */
  mode: number;
  /** `st_nlink`. */
  links: number;
}

/** Whom a tree's entries are given to. */
export interface OwnerRule {
  kind: 'personal' | 'grant';
  /** The one uid of earlier versions. */
  legacyUid: number;
  /** The user's uid, or the grant's owner (its one user, or 0). */
  uid: number;
  /** The user's gid, or the grant's group. */
  gid: number;
}

export type EntryChange =
  /** Nothing to do. */
  | { action: 'keep' }
  /** Left to the operator, with the reason; `mode`, when set, clears setuid and setgid. */
  | { action: 'leave'; reason: 'hard link' | 'device'; mode?: number }
  /** Given to `uid`:`gid`, and given `mode` when set (before the owner changes). */
  | { action: 'give'; uid: number; gid: number; mode?: number };

const SETUID_SETGID = 0o6000;
const SETGID = 0o2000;

/** The entry's mode with its group bits a copy of its owner bits. */
function groupLikeOwner(mode: number): number {
  return (mode & ~0o070) | ((mode & 0o700) >> 3);
}

function givenMode(facts: EntryFacts, rule: OwnerRule, treeRoot: boolean): number | undefined {
  if (facts.type === 'symlink') return undefined; // Linux has no mode of a link
  let mode = facts.mode;
  if (rule.kind === 'personal' && treeRoot) mode = 0o700;
  if (rule.kind === 'grant') mode = groupLikeOwner(mode) | (facts.type === 'directory' ? SETGID : 0);
  if (facts.type === 'file') mode &= ~SETUID_SETGID;
  return mode === facts.mode ? undefined : mode;
}

/** What to do with the entry described by `facts`; `treeRoot` for the tree's own directory. */
export function legacyOwnerChange(facts: EntryFacts, rule: OwnerRule, treeRoot = false): EntryChange {
  const legacy = facts.uid === rule.legacyUid;
  const taken = legacy || (rule.kind === 'personal' && facts.uid === 0);
  if (!taken) return { action: 'keep' };
  if (facts.type === 'device') return { action: 'leave', reason: 'device' };
  if (facts.type !== 'directory' && facts.links > 1) {
    const cleared = facts.mode & ~SETUID_SETGID;
    return legacy && facts.type === 'file' && cleared !== facts.mode
      ? { action: 'leave', reason: 'hard link', mode: cleared }
      : { action: 'leave', reason: 'hard link' };
  }
  const mode = givenMode(facts, rule, treeRoot);
  return mode === undefined
    ? { action: 'give', uid: rule.uid, gid: rule.gid }
    : { action: 'give', uid: rule.uid, gid: rule.gid, mode };
}

/** Whether applying `change` to the entry described by `facts` clears a setuid or setgid bit. */
export function clearsSetuid(facts: EntryFacts, change: EntryChange): boolean {
  if (change.action === 'keep' || change.mode === undefined || facts.type !== 'file') return false;
  return (facts.mode & SETUID_SETGID) !== 0 && (change.mode & SETUID_SETGID) === 0;
}
