/**
 * Where the ids of the sandbox range are kept (migration 12, `sandbox_ids`): one row per id, with the
 * owner it was given to. The id is the primary key and (kind, owner) is unique, so several instances
 * that allocate at the same moment can never hand one id to two owners or two ids to one owner; the
 * loser of a race finds the winner's row. Rows are never deleted: an id is never given again.
 */
import { MangoError } from '../errors/mango-error.ts';
import type { SandboxIdRange } from './sandbox-id-range.ts';

/** `user`: a Mango user's uid and gid. `grant`: the group of a directory granted to users (its real path). */
export type SandboxIdKind = 'user' | 'grant';

export interface SandboxIdRow {
  id: number;
  kind: SandboxIdKind;
  /** The user's id, or the granted directory's real path. */
  owner: string;
  createdAt: string;
}

export interface SandboxIdRepository {
  /** The id given to this owner, or undefined when it has none yet. */
  find(kind: SandboxIdKind, owner: string): Promise<number | undefined>;
  /**
   * The id given to this owner, giving it the next unused one of `range` when it has none.
   * @throws SandboxIdRangeFullError when the range has no unused id left.
   */
  allocate(kind: SandboxIdKind, owner: string, range: SandboxIdRange, now: string): Promise<number>;
  /** Every id given so far, in id order. */
  list(): Promise<SandboxIdRow[]>;
}

/** Thrown when every id of the range is taken; the message names the variable to raise. */
export class SandboxIdRangeFullError extends MangoError {
  override name = 'SandboxIdRangeFullError';
  constructor(range: SandboxIdRange) {
    super(
      'sandbox_ids_exhausted',
      `Every id of the sandbox range ${range.base}–${range.base + range.count - 1} is taken, so this user has no uid to run commands as; raise MANGO_SANDBOX_UID_COUNT (ids are never reused).`,
    );
  }
}
