/**
 * A refusal of the protected set made in a user's file worker, logged by the server as one it made
 * itself (access-log.ts: one `tool_access_refused` line, the call's user, chat and clock), so an
 * operator's alert on such lines sees the same whichever way file tools run. The worker is untrusted:
 * a refusal is logged only when the server's own policy finds the location it names covered by the
 * same protected path (the second wall); otherwise the reply is not valid.
 */
import { logProtectedPathRefusal } from '../tools/access/access-log.ts';
import { ProtectedPathRefusedError } from '../tools/access/protected-path-refused-error.ts';
import { protectedPathCovering } from '../tools/access/reachable-set.ts';
import type { ToolContext } from '../tools/types.ts';
import { InvalidReplyError } from './file-worker-replies.ts';

/**
 * Logs `error` when it is a worker's protected-path refusal of the call `context`; throws
 * InvalidReplyError when the refusal names a path the server does not protect.
 */
export function logWorkerProtectedPathRefusal(error: unknown, context: ToolContext): void {
  if (!(error instanceof ProtectedPathRefusedError)) return;
  const { real, protectedPath } = error.location;
  // The server's own decision on the location the worker names must be the same protected path.
  if (protectedPathCovering(context.reachable, real) !== protectedPath) {
    throw new InvalidReplyError(
      `it refused a path as protected by ${protectedPath}, which does not protect that path on this server`,
    );
  }
  logProtectedPathRefusal({
    userId: context.userId,
    chatId: context.chatId,
    ...error.location,
    at: context.now(),
  });
}
