/**
 * Whether this process's file work runs confined: inside a file worker's sandbox (src/file-worker/),
 * as the user's uid, in a mount namespace that holds the user's reachable set with the protected set
 * covered, and nothing else of the host but the system's read-only runtime. Only the worker's own
 * program declares it, once, when the server's `init` arrives (file-worker-main.ts); nothing the
 * server runs can set it, so in the server it is always false.
 *
 * What it buys is one check per file that the namespace already makes: see `directOpenIsBounded`
 * in grep/grep-files.ts and docs/decisions/2026-12-02-file-workers.md.
 */

let confined = false;

/** Declares this process a confined file worker (file-worker-main.ts only, at init). */
export function declareConfinedFileWork(): void {
  confined = true;
}

/** True in a file worker's process after its init, false everywhere else. */
export function fileWorkIsConfined(): boolean {
  return confined;
}
