/**
 * Turns an operating-system error on a path into a classified tool error whose message names the path
 * and says what to try instead. Shared by every filesystem tool.
 *
 * The paths tools act on are real paths decided by the access policy, and every open below them refuses
 * links: `ELOOP` (a link where the decision saw none) or `EXDEV` (a path that left its held directory)
 * means the tenant changed the path while the tool used it. That is a refusal, not a failure of the
 * tool, so it is `permission_denied`, like a write the policy refuses.
 */

import { errorCodeOf } from '../../descriptors/system-call-error.ts';
import { errorMessage } from '../../errors/error-message.ts';
import {
  classifySystemError,
  ToolError,
  ToolExecutionError,
  ToolNotFoundError,
  ToolPermissionError,
} from '../errors.ts';

/** A ToolError for `error` raised while `action` on the path the model called `shown`. */
export function describeSystemError(error: unknown, action: string, shown: string): ToolError {
  if (ToolError.isInstance(error)) return error;
  const code = errorCodeOf(error);
  const path = JSON.stringify(shown);
  if (code === 'ELOOP' || code === 'EXDEV' || code === 'path_changed') {
    return new ToolPermissionError(
      `Cannot ${action} ${path}: the path changed while the tool was using it (a file or directory on it was moved, or replaced by a link), so nothing was done there. Check it with list_directory and try again.`,
    );
  }
  switch (classifySystemError(error)) {
    case 'not_found':
      return code === 'ENOTDIR'
        ? new ToolNotFoundError(`Cannot ${action} ${path}: a component of the path is not a directory.`)
        : new ToolNotFoundError(
            `Cannot ${action} ${path}: no such file or directory. Check the path with list_directory or glob.`,
          );
    case 'permission_denied':
      return new ToolPermissionError(
        `Cannot ${action} ${path}: the operating system denied access (${code}).`,
      );
    default: {
      if (code === 'EISDIR') {
        return new ToolExecutionError(
          `Cannot ${action} ${path}: it is a directory. Use list_directory for directories.`,
        );
      }
      const message = errorMessage(error);
      return new ToolExecutionError(`Cannot ${action} ${path}: ${message}`);
    }
  }
}
