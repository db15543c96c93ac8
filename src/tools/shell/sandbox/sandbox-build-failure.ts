/**
 * Telling a sandbox bubblewrap could not build from a command that failed. Both end with exit status
 * 1 and a message on stderr, but only the first never started the waiter (sandbox-waiter.ts): then no
 * command ran at all, and the call is an `execution_error` that says what bubblewrap said, instead of a
 * result the model would read as its own command's failure. The usual cause is a directory of the
 * call's reachable set that the sandbox uid cannot pass.
 */
import type { ShellCommandResult } from '../run-shell-command.ts';
import type { LaunchedSandbox } from './launched-sandbox.ts';

/** The message for a call whose sandbox was never built, or undefined when the command ran. */
export async function sandboxBuildFailure(
  sandbox: LaunchedSandbox,
  result: ShellCommandResult,
  uid: number,
): Promise<string | undefined> {
  if (result.termination.kind !== 'exited' || (await sandbox.started())) return undefined;
  const said = result.stderr.trim().split('\n')[0] ?? '';
  return `The shell sandbox could not be built for this call, so the command did not run: ${
    said === '' ? `bubblewrap exited with status ${result.exitCode}` : said
  }. Every directory the call reaches must be passable for the sandbox uid ${uid}.`;
}
