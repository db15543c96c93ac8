/**
 * How the shell sandbox's state is told to people: one line at server start, and the notice the tools
 * page shows on each shell tool. The `off` mode is always called out, since it removes containment.
 */
import type { ShellSandboxStatus } from './shell-sandbox.ts';

/** The start-up line. */
export function describeShellSandbox(status: ShellSandboxStatus): string {
  if (!status.available) return `Shell tools are unavailable: ${status.reason}`;
  if (status.mode === 'off') return `WARNING: shell sandbox ${status.summary}.`;
  return `Shell commands run in a sandbox: ${status.summary}.`;
}

/** The notice on a shell tool's card, or undefined when it is unavailable (the reason is shown then). */
export function shellToolNotice(status: ShellSandboxStatus): string | undefined {
  if (!status.available) return undefined;
  if (status.mode === 'off') return `Sandbox ${status.summary}.`;
  return `Commands run in an OS sandbox (${status.summary}).`;
}
