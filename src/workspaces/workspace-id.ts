/**
 * The opaque id of a workspace in the API (`/api/workspaces/:id/files`): derived from its real path, so
 * it needs no storage, stays the same across restarts and instances, and changes only when the
 * workspace itself does (a grant of another directory). It names nothing by itself: a request is
 * answered only when the id is one of the caller's own workspaces, looked up afresh each time.
 */
import { createHash } from 'node:crypto';

/** `ws_` and 20 hex digits of the SHA-256 of the real path. */
export function workspaceId(realPath: string): string {
  return `ws_${createHash('sha256').update(realPath).digest('hex').slice(0, 20)}`;
}

/** What a well-formed id looks like (anything else is refused before a lookup). */
export const WORKSPACE_ID_PATTERN = /^ws_[0-9a-f]{20}$/;
