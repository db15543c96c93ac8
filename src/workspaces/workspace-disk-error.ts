/**
 * Failures of the disk quotas of personal workspaces, each with a stable `code` and a message that says
 * what is wrong and what to do. The command line prints them; a request that meets one (a workspace
 * whose image cannot be mounted) is a fault of the host, answered as a server error and logged.
 */
import { MangoError } from '../errors/mango-error.ts';
export type WorkspaceDiskErrorCode =
  /** This process cannot make or mount images (not root, e2fsprogs missing, mounting refused). */
  | 'unavailable'
  /** The workspace lives on an image that is not, and cannot be, mounted at its path. */
  | 'image_unusable'
  /** `mango workspace move-to-image` began moving the workspace and has not finished. */
  | 'move_in_progress'
  /** A quota the rules refuse, or one below what the workspace already uses. */
  | 'quota_refused'
  /** The move cannot start or go on (a server is running, no room on the host, nothing to move). */
  | 'move_refused';

export class WorkspaceDiskError extends MangoError {
  override readonly code: WorkspaceDiskErrorCode;

  constructor(code: WorkspaceDiskErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.name = 'WorkspaceDiskError';
    this.code = code;
  }
}
