/**
 * The sandbox reaper: one host process per sandbox owner (a BubblewrapSandbox), so that no command's
 * sandbox outlives the server or CLI that started it, whatever state it is in when that process ends.
 *
 * Why it is needed: bubblewrap's `--die-with-parent` kills bubblewrap's outer process when the server
 * dies, but the namespace's first process sets its own parent-death signal only after the outer
 * process released it through an eventfd. A server that ends in between (a CLI that exits right after
 * a call, while the pool builds the next sandbox) leaves that process with parent 1, blocked forever
 * on an eventfd that no one will write, holding a slot of the sandbox uid's process limit. Until it
 * starts its own session it is still in the process group of the chain the server spawned.
 *
 * Guarantees (sandbox-reaper.pl, a few lines of Perl run as `perl -e`):
 * - Started with the owner's first sandbox, as the server's own user (it takes no slot of the sandbox
 *   uid's process limit), in a session of its own (a Ctrl-C or hang-up for the server's terminal does
 *   not reach it), with an empty environment, `/` as its directory and only its stdin, the pipe from
 *   the server, open; it ignores the usual stop signals, so only that pipe's end stops it.
 * - Each launched sandbox's process group (launched-sandbox.ts spawns it detached, so its pid is its
 *   group id) is registered right after `Bun.spawn` returns, and forgotten when the sandbox is released
 *   (its namespace is gone, sandbox-teardown.ts) or discarded (its group was killed).
 * - When the pipe reaches end-of-file, because the server exited, was stopped or was killed in any
 *   way (the kernel closes its end), the reaper sends SIGKILL to each group still registered, and to
 *   nothing else, then exits.
 * - Neither the reaper nor its pipe keeps the server's event loop alive (both are unref'd): a CLI
 *   exits as if it were not there.
 * - Each line is written and flushed synchronously, so a registration the call returned from has
 *   reached the pipe, and survives a SIGKILL of the server a moment later.
 *
 * What it does not cover: a server killed by SIGKILL between `Bun.spawn` returning and the synchronous
 * registration write right after it (no await lies in between, so only an external SIGKILL lands
 * there) leaves that one sandbox unregistered, as before the reaper existed. A reaper that was itself
 * killed from outside (SIGKILL) protects none of the owner's sandboxes afterwards. And a group is
 * forgotten only once the call saw its namespace gone, a few milliseconds after its leader was reaped:
 * a server that ends in between has the reaper signal a group id nobody holds, unless the kernel
 * handed that id to a new group of the server's user within those milliseconds.
 */
import { readFileSync } from 'node:fs';

/** The reaper's Perl (sandbox-reaper.pl), read once at start-up and passed on the command line. */
export const REAPER_SCRIPT = readFileSync(new URL('./sandbox-reaper.pl', import.meta.url), 'utf8');

export interface SandboxReaper {
  /** Registers a process group to kill if the server ends; starts the reaper with the first call. */
  register(processGroupId: number): void;
  /** Forgets a process group that is gone (the sandbox was released or discarded). */
  forget(processGroupId: number): void;
  /** The reaper's pid once it was started (tests). */
  pid(): number | undefined;
}

/** A reaper run by `perlPath`, started lazily with the first registration. */
export function createSandboxReaper(perlPath: string): SandboxReaper {
  let reaper: Bun.Subprocess<'pipe', 'ignore', 'ignore'> | undefined;
  const registered = new Set<number>();

  const send = (line: string): void => {
    if (!reaper) return;
    try {
      reaper.stdin.write(line);
      // A full pipe (the reaper far behind) makes flush asynchronous; the line still goes out in order.
      void Promise.resolve(reaper.stdin.flush()).catch(() => {});
    } catch {
      // The reaper is gone (killed from outside): there is nobody left to tell.
    }
  };

  return {
    register(processGroupId: number): void {
      // 0 and 1 would mean "this group" and "every process" to kill: never registered.
      if (!Number.isInteger(processGroupId) || processGroupId <= 1) return;
      if (!reaper) {
        reaper = Bun.spawn([perlPath, '-e', REAPER_SCRIPT], {
          cwd: '/',
          env: {},
          stdio: ['pipe', 'ignore', 'ignore'],
          detached: true,
        });
        reaper.unref();
        reaper.stdin.unref();
      }
      registered.add(processGroupId);
      send(`+${processGroupId}\n`);
    },
    forget(processGroupId: number): void {
      if (!registered.delete(processGroupId)) return;
      send(`-${processGroupId}\n`);
    },
    pid: () => reaper?.pid,
  };
}
