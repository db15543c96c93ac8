/**
 * Failures of the workspaces layer, each with a stable `code`. Callers above it translate them: the chat
 * service and MCP into `invalid_working_directory`, the CLI into a message and exit code 1; only
 * `src/http/http-errors.ts` maps them to statuses (all 422).
 *
 * `outside_workspaces` carries one fixed message (`OUTSIDE_WORKSPACES_MESSAGE`) whatever the path was:
 * whether a path outside the caller's workspaces exists, is a file, or belongs to another user must
 * not be learnable from the answer.
 */
import { MangoError } from '../errors/mango-error.ts';
export type WorkspaceErrorCode =
  /** The path lies outside every workspace of the caller (or its real location does). */
  | 'outside_workspaces'
  /** Inside a workspace, but nothing exists there. */
  | 'missing'
  /** Inside a workspace, but not a directory. */
  | 'not_a_directory'
  /** The path is not absolute (or `~`-prefixed), or otherwise malformed. */
  | 'invalid_path'
  /** A grant was refused: the directory is protected, not a directory, or the user's commands could not reach it. */
  | 'grant_refused'
  /** The user may not have unrestricted chats or sessions. */
  | 'unrestricted_not_allowed';

/** The one answer for every path outside the caller's workspaces. */
export const OUTSIDE_WORKSPACES_MESSAGE =
  'The working directory is not inside any of your workspaces (GET /api/workspaces lists them).';

const WORKSPACE_ERROR_MARKER = Symbol.for('mango.workspace.error');

export class WorkspaceError extends MangoError {
  readonly [WORKSPACE_ERROR_MARKER] = true;
  override readonly code: WorkspaceErrorCode;

  constructor(code: WorkspaceErrorCode, message: string) {
    super(code, message);
    this.name = 'WorkspaceError';
    this.code = code;
  }

  /** Works across module copies, unlike `instanceof`. */
  static isInstance(value: unknown): value is WorkspaceError {
    return typeof value === 'object' && value !== null && WORKSPACE_ERROR_MARKER in value;
  }
}

export function outsideWorkspaces(): WorkspaceError {
  return new WorkspaceError('outside_workspaces', OUTSIDE_WORKSPACES_MESSAGE);
}
