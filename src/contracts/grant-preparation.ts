/**
 * What the workspace service asks before it stores a grant, and what the shell sandbox answers
 * (sandbox/sandbox-grant-preparation.ts): the grant's group is given out, and when each user's commands
 * run as a uid of their own, whether that uid can reach the directory. The two layers speak it without
 * importing each other; the command line hands the sandbox's answer to the service.
 */

export interface GrantRequest {
  userId: string;
  /** Real path, already checked against the protected set. */
  path: string;
  readOnly: boolean;
  /** Change the directory itself (its group and group bits) so the user's commands can use it. */
  fixOwner: boolean;
}

export interface GrantPreparationOutcome {
  /** Why the grant must not be stored (the sentence after "Cannot grant DIR: "); absent = go ahead. */
  refusal?: string;
  /** What was done on the way, one line each, for the operator. */
  notes: readonly string[];
}

/** Runs before a grant is stored; a refusal stops it. */
export type GrantPreparation = (request: GrantRequest) => Promise<GrantPreparationOutcome>;
