/**
 * Where a CLI command that acts for a user (`mango tool call|replay --user`, `mango mcp --user`,
 * `mango chat --user`) does its file tools' work: as `startServer` decides it, in that user's file
 * worker (src/file-worker/), as the user's uid, in their sandbox, when the command's shell sandbox can
 * hold workers (bubblewrap, available); otherwise in this process, on verified descriptors. The command
 * says which on stderr (stdout is its result or its protocol channel), in the server's own words.
 *
 * Operator mode (no `--user`) installs nothing: its reachable set is the whole filesystem, which no
 * worker serves (a sandbox of everything holds nothing back), so its file work stays here as before.
 *
 * The workers are stopped when the command's work ends, whichever way it ends; they would also die with
 * the process (file-worker-process.ts).
 */
import { installFileWorkers } from '../file-worker/install-file-workers.ts';
import { hostShellSandbox } from '../sandbox/host-shell-sandbox.ts';
import type { CliIo } from './usage-error.ts';

/**
 * Runs `work` with the file workers of this command installed when it acts for `userName`; `label`
 * opens the line that says where file tools run (`mango tool`, `mango mcp`).
 */
export async function withCliFileWorkers<T>(
  io: Pick<CliIo, 'stderr'>,
  label: string,
  userName: string | undefined,
  work: () => Promise<T>,
): Promise<T> {
  if (userName === undefined) return work();
  // The sandbox the command's shell tools run in, with the users' uids of its database.
  const workers = installFileWorkers(hostShellSandbox());
  io.stderr(`${label}: ${workers.summary}\n`);
  try {
    return await work();
  } finally {
    workers.stop();
  }
}
