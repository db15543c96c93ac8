/**
 * The one structured line logged per sandboxed command, so an operator can see who ran what, where,
 * and how it ended. Long commands are cut (the line stays one line of bounded size); the output itself
 * is never logged.
 */
import type { ShellCommandResult } from '../tools/shell/run-shell-command.ts';
import type { SandboxedCommand, ShellSandboxMode } from './shell-sandbox.ts';

/** Longest command text kept in a log line. */
export const LOGGED_COMMAND_CHARACTERS = 1000;

export function formatSandboxLogLine(
  mode: ShellSandboxMode,
  command: Pick<SandboxedCommand, 'userId' | 'chatId' | 'shell' | 'command' | 'cwd'>,
  result: ShellCommandResult,
  /** Whether the command ran in a sandbox built ahead of the call (bubblewrap's warm pool). */
  prebuilt?: boolean,
): string {
  const text =
    command.command.length > LOGGED_COMMAND_CHARACTERS
      ? `${command.command.slice(0, LOGGED_COMMAND_CHARACTERS)}…`
      : command.command;
  return JSON.stringify({
    event: 'shell_command',
    sandbox: mode,
    user: command.userId,
    chat: command.chatId ?? null,
    shell: command.shell,
    command: text,
    cwd: command.cwd,
    outcome: result.termination.kind,
    exitCode: result.exitCode,
    signal: result.signal,
    durationMs: result.durationMs,
    ...(prebuilt === undefined ? {} : { prebuilt }),
  });
}
