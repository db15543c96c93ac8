/**
 * Telling a sandbox bubblewrap could not build from a command that failed. Both end with exit status
 * 1 and a message on stderr, but only the first never started the waiter (sandbox-waiter.ts): then no
 * command ran at all, and the call is an `execution_error` that says what bubblewrap said, instead of a
 * result the model would read as its own command's failure. The usual cause is a directory of the
 * call's reachable set that the sandbox uid cannot pass: bubblewrap resolves each mount's descriptor
 * (`/proc/self/fd/N`, shown here as the source path) as that uid. bubblewrap's "Race condition binding
 * dirfd" means it found another object at a mount source's path than the descriptor the server held
 * (a tenant swapped it meanwhile): it mounted nothing in its place, and the message says so.
 * "Resource temporarily unavailable" (EAGAIN) means the kernel would not make a process for the
 * sandbox: its user's processes are at their limit (bubblewrap joins the user's process cgroup before it
 * creates its namespaces, or after, depending on timing), so the call says what the waiter's failed fork
 * says in the same case.
 */
import type { ShellCommandResult } from '../tools/shell/run-shell-command.ts';
import type { LaunchedSandbox } from './launched-sandbox.ts';
import { withMountSources } from './mount-sources.ts';

const RACE_REFUSAL = 'Race condition binding dirfd';
const NO_PROCESS = 'Resource temporarily unavailable';

/** The message for a call whose sandbox was never built, or undefined when the command ran. */
export async function sandboxBuildFailure(
  sandbox: Pick<LaunchedSandbox, 'started' | 'mounts'>,
  result: ShellCommandResult,
  uid: number,
  processLimitMessage: (errno: 'EAGAIN', reason: string) => string,
): Promise<string | undefined> {
  if (result.termination.kind !== 'exited' || (await sandbox.started())) return undefined;
  const said = withMountSources(result.stderr.trim().split('\n')[0] ?? '', sandbox.mounts);
  if (said.includes(RACE_REFUSAL)) {
    return `The shell sandbox could not be built for this call, so the command did not run: a directory it mounts was replaced while the sandbox was built (bubblewrap: ${said}). Nothing was mounted in its place.`;
  }
  if (said.includes(NO_PROCESS)) return processLimitMessage('EAGAIN', said);
  return `The shell sandbox could not be built for this call, so the command did not run: ${
    said === '' ? `bubblewrap exited with status ${result.exitCode}` : said
  }. Every directory the call reaches, and every directory above it, must be passable for the sandbox uid ${uid}.`;
}
