/**
 * A refusal of the protected set made in a user's file worker, logged by the server as one it made
 * itself (access-log.ts: one `tool_access_refused` line, the call's user, chat and clock), so an
 * operator's alert on such lines sees the same whichever way file tools run. The worker is untrusted:
 * a refusal is logged only when the protected path it names is one of the call's own protected set
 * and the location lies inside it (the second wall); otherwise the reply is not valid.
 */
import { logProtectedPathRefusal } from '../tools/access/access-log.ts';
import { ProtectedPathRefusedError } from '../tools/access/protected-path-refused-error.ts';
import { isPathInside } from '../tools/access/reachable-set.ts';
import type { ToolContext } from '../tools/types.ts';
import { InvalidReplyError } from './file-worker-replies.ts';

/**
 * Logs `error` when it is a worker's protected-path refusal of the call `context`; throws
 * InvalidReplyError when the refusal names a path the server does not protect.
 */
export function logWorkerProtectedPathRefusal(error: unknown, context: ToolContext): void {
  if (!(error instanceof ProtectedPathRefusedError)) return;
  const { path, real, protectedPath } = error.location;
  if (!context.reachable.protectedPaths.includes(protectedPath) || !isPathInside(real, protectedPath)) {
    throw new InvalidReplyError(
      `it refused a path as protected by ${protectedPath}, which this server does not protect`,
    );
  }
  logProtectedPathRefusal({
    userId: context.userId,
    chatId: context.chatId,
    path,
    real,
    protectedPath,
    at: context.now(),
  });
}
