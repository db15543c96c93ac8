/**
 * One shell command in its own bubblewrap sandbox: planned for the caller's identity, started in a
 * pooled sandbox when one with exactly that plan waits (sandbox-call-start.ts) and a fresh one
 * otherwise, logged as one JSON line, and failed with the reason when the sandbox could not be built
 * or the command's first process found no process slot in the user's share. After each command a
 * sandbox with the same plan is built ahead, for the next call of that user only (the plan holds the
 * uid).
 */
import { ToolError } from '../tools/errors.ts';
import { runShellCommand, type ShellCommandResult } from '../tools/shell/run-shell-command.ts';
import type { ShellInterpreter } from '../tools/shell/shell-interpreter.ts';
import type { BubblewrapCallContext } from './bubblewrap-call-setup.ts';
import type { LaunchedSandbox } from './launched-sandbox.ts';
import { sandboxBuildFailure } from './sandbox-build-failure.ts';
import { startSandboxForCall } from './sandbox-call-start.ts';
import { formatSandboxLogLine } from './sandbox-log-line.ts';
import { sandboxKey } from './sandbox-pool.ts';
import { encodeWaiterMessage } from './sandbox-waiter.ts';
import type { SandboxedCommand } from './shell-sandbox.ts';

export async function runBubblewrapCommand(
  command: SandboxedCommand,
  context: BubblewrapCallContext,
): Promise<ShellCommandResult> {
  const { setup, pool, shares } = context;
  context.ready();
  const identity = await context.identityFor(
    command.userId,
    command.reachable.roots.map((root) => root.path),
  );
  const { tools, files } = context.ready();
  const interpreter: ShellInterpreter = {
    kind: command.shell,
    executable: command.interpreterPath,
    argumentsFor: (line) => [command.interpreterPath, '-c', line],
  };
  const plan = setup.argumentsFor(tools, files, identity, command);
  let prebuilt: boolean | undefined;
  let launched: LaunchedSandbox | undefined;
  const result = await runShellCommand({
    ...command,
    interpreter,
    environment: setup.environmentFor(identity, command.interpreterPath, command.deniedEnvVars),
    wrapper: {
      start: (interpreterArguments, environment) =>
        startSandboxForCall({
          pool,
          shares,
          plan,
          launch: context.launch,
          message: encodeWaiterMessage(interpreterArguments, environment),
          timeoutMs: command.timeoutMs,
          userId: command.userId,
          onStart: (value, sandbox) => {
            prebuilt = value;
            launched = sandbox;
          },
        }),
    },
  });
  // The next call of this chat most likely needs the same plan: build its sandbox now, while the
  // model reads this result. The plan holds the call's uid, so it is handed only to this user.
  if (context.available()) pool.prepare(sandboxKey(plan), plan);
  context.log(formatSandboxLogLine('bubblewrap', command, result, prebuilt));
  const failure =
    launched && (await sandboxBuildFailure(launched, result, identity.uid, shares.startFailureMessage));
  if (failure) throw new ToolError('execution_error', failure);
  const record = await launched?.record();
  if (record?.kind === 'start-failed' && record.step === 'fork') {
    throw new ToolError('execution_error', shares.startFailureMessage(record.errno, record.reason));
  }
  return result;
}
