/**
 * The keeper: the first process of every command's sandbox, on the host, so that a sandbox never
 * outlives the process that started it, whatever state it is in when that process ends.
 *
 * Why it is needed: bubblewrap's `--die-with-parent` kills bubblewrap's outer process when the server
 * dies, but the namespace's first process sets its own parent-death signal only after the outer
 * process released it through an eventfd. A server that ends in between (a CLI that exits right after
 * a call, while the pool builds the next sandbox) leaves that process with parent 1, blocked forever
 * on an eventfd that no one will write, holding a slot of the sandbox uid's process limit.
 *
 * Guarantees (sandbox-keeper.pl, a few lines of Perl run as `perl -e`):
 * - It forks a watcher and then becomes the sandbox chain itself (`prlimit`, `setpriv`, bubblewrap),
 *   so the pid, exit status and descriptors the server sees are bubblewrap's, as without it.
 * - The watcher keeps only descriptor 4, bubblewrap's info socket, whose other end only the server
 *   holds, and reads it: it reads end-of-file when the server closes its end (the call is over, or the
 *   sandbox was discarded) or dies in any way (exit, SIGTERM, SIGKILL). Then it kills the sandbox's
 *   process group, which still holds the namespace's first process until that process starts its own
 *   session (after the eventfd); from then on that process has its parent-death signal and the waiter
 *   ends on its closed stdin or records (sandbox-waiter.ts).
 * - It kills only the group it leads (the server spawns the chain detached): anywhere else it starts
 *   the chain and watches nothing.
 * - It runs as the server's own user, before the uid drop and the limits, so it takes no slot of the
 *   sandbox uid's process limit.
 */
import { readFileSync } from 'node:fs';

/** The keeper's Perl (sandbox-keeper.pl), read once at start-up and passed on the command line. */
export const KEEPER_SCRIPT = readFileSync(new URL('./sandbox-keeper.pl', import.meta.url), 'utf8');

/** The argument vector that puts the keeper in front of a sandbox chain. */
export function keeperArguments(perlPath: string): string[] {
  return [perlPath, '-e', KEEPER_SCRIPT, '--'];
}
