/**
 * A long-running program (an MCP server, say) prepared to start in a bubblewrap sandbox of its user:
 * planned like a command, with the program's own argv and network choice, and described (argv,
 * environment, cwd) before it starts so the caller can show what will run. Starting joins the user's
 * shares (sandboxed-program-start.ts).
 */

import type { BubblewrapCallContext } from './bubblewrap-call-setup.ts';
import { describePlan } from './bubblewrap-mount-plan.ts';
import { startSandboxedProgram } from './sandboxed-program-start.ts';
import type { SandboxedProgram, SandboxedProgramLaunch } from './shell-sandbox.ts';

export async function prepareBubblewrapProgram(
  program: SandboxedProgram,
  context: Pick<BubblewrapCallContext, 'setup' | 'identityFor' | 'ready' | 'shares'>,
): Promise<SandboxedProgramLaunch> {
  const { setup } = context;
  context.ready();
  const identity = await context.identityFor(
    program.userId,
    program.reachable.roots.map((root) => root.path),
  );
  const { tools, files } = context.ready();
  const plan = setup.argumentsFor(
    tools,
    files,
    identity,
    { reachable: program.reachable, cwd: program.cwd, deniedPaths: [] },
    false,
    program,
  );
  const launch = {
    argv: describePlan(plan),
    environment: program.environmentOnly
      ? { ...program.environment }
      : { ...setup.environmentFor(identity, '/bin/sh', []), ...program.environment },
    cwd: program.cwd,
  };
  return {
    ...launch,
    start: () =>
      startSandboxedProgram({
        plan,
        environment: launch.environment,
        shares: context.shares,
        userId: program.userId,
      }),
  };
}
