/**
 * The refusal of a location that belongs to the server (the protected set): a permission error that
 * also carries what the structured access log records (access-log.ts), so a refusal made where the
 * file work runs (a user's file worker) can come back to the server and be logged there,
 * as one the server made itself is. Its classification stays `permission_denied`; the worker's reply
 * names it by `refusal.reason: 'protected_path'` (file-worker-replies.ts).
 */
import { ToolPermissionError } from '../errors.ts';

/** What a protected-path refusal names: the path as the call named it, where it landed, what covers it. */
export interface ProtectedPathLocation {
  path: string;
  real: string;
  protectedPath: string;
}

export class ProtectedPathRefusedError extends ToolPermissionError {
  readonly location: ProtectedPathLocation;

  constructor(message: string, location: ProtectedPathLocation) {
    super(message);
    this.name = 'ProtectedPathRefusedError';
    this.location = { ...location };
  }
}
