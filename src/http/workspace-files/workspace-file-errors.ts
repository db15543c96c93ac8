/**
 * Operating-system errors of the files routes in the words of the files panel (the tools' wording
 * points a model at list_directory): a missing path is a 404, a denial by the operating system a 403;
 * an answer already decided (an HTTP or workspace error) passes unchanged, and anything else stays a
 * classified tool error.
 */
import { describeSystemError } from '../../tools/fs/describe-system-error.ts';
import { WorkspaceError } from '../../workspaces/workspace-error.ts';
import { HttpError } from '../http-errors.ts';

/** The 404 of a path with nothing there. */
export function nothingAt(path: string): HttpError {
  return new HttpError(404, 'not_found', `Nothing exists at ${JSON.stringify(path)} in this workspace.`);
}

export function describeFileError(error: unknown, path: string): Error {
  if (error instanceof HttpError || WorkspaceError.isInstance(error)) return error;
  const described = describeSystemError(error, 'open', path);
  return described.classification === 'not_found' ? nothingAt(path) : described;
}
