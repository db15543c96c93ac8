/**
 * The shell "sandbox" an operator gets with `MANGO_SHELL_SANDBOX=off`: commands run as the server's own
 * user with the server's view of the machine, no namespace, no limit beyond the timeout and caps. What
 * still holds: the environment allowlist (shell-environment.ts), the working-directory checks of the
 * tool, the process-group kill after each call, and the per-command log line. The server logs at start
 * that this mode is on, and the tools page shows it.
 */
import { userInfo } from 'node:os';
import { processEnvironment } from '../config/process-environment.ts';
import { runShellCommand, type ShellCommandResult } from '../tools/shell/run-shell-command.ts';
import { buildShellEnvironment } from '../tools/shell/shell-environment.ts';
import { formatSandboxLogLine } from './sandbox-log-line.ts';
import {
  type SandboxedCommand,
  type ShellSandbox,
  type ShellSandboxStatus,
  searchPathOf,
} from './shell-sandbox.ts';

export interface UnsandboxedShellOptions {
  passEnv?: readonly string[];
  environment?: Readonly<Record<string, string | undefined>>;
  /** Receives one JSON line per command (default: stdout). */
  log?: (line: string) => void;
}

export const UNSANDBOXED_SUMMARY =
  'off (MANGO_SHELL_SANDBOX=off): commands run as the server user and see everything it can';

export function createUnsandboxedShell(options: UnsandboxedShellOptions = {}): ShellSandbox {
  const status: ShellSandboxStatus = { available: true, mode: 'off', summary: UNSANDBOXED_SUMMARY };
  const log = options.log ?? ((line: string) => console.log(line));
  const user = userInfo();
  const programEnvironment = () =>
    buildShellEnvironment(
      { home: user.homedir, user: user.username, shell: '/bin/sh' },
      { passEnv: options.passEnv },
      options.environment ?? processEnvironment(),
    );
  return {
    status: () => status,
    // The operator switched containment off: a program runs as the server user, like a command.
    programView: (variables) => ({
      searchPath: searchPathOf({ ...programEnvironment(), ...variables }),
      systemDirectories: undefined,
    }),
    prepareProgram: async (program) => {
      const launch = {
        argv: [...program.argv],
        environment: { ...programEnvironment(), ...program.environment },
        cwd: program.cwd,
      };
      return {
        ...launch,
        start: async () =>
          Bun.spawn(launch.argv, {
            cwd: launch.cwd,
            env: launch.environment,
            stdin: 'pipe',
            stdout: 'pipe',
            stderr: 'pipe',
          }),
      };
    },
    async run(command: SandboxedCommand): Promise<ShellCommandResult> {
      const result = await runShellCommand({
        ...command,
        interpreter: {
          kind: command.shell,
          executable: command.interpreterPath,
          argumentsFor: (line) =>
            command.shell === 'powershell'
              ? [command.interpreterPath, '-NoProfile', '-NonInteractive', '-Command', line]
              : [command.interpreterPath, '-c', line],
        },
        environment: buildShellEnvironment(
          { home: user.homedir, user: user.username, shell: command.interpreterPath },
          { passEnv: options.passEnv, deniedEnvVars: command.deniedEnvVars },
          options.environment ?? processEnvironment(),
        ),
      });
      log(formatSandboxLogLine('off', command, result));
      return result;
    },
  };
}
