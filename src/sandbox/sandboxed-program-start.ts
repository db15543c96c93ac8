/**
 * Starting a long-running program in the sandbox that `prepareProgram` planned: spawn the sandbox with
 * bubblewrap's info on descriptor 3, join it to its user's shares (user-shares.ts) while the program
 * launcher (sandbox-program-launcher.ts) still holds the program back, then let the program start; its memory
 * cgroup is removed once the sandbox has exited. The program's stdin, stdout and stderr are the
 * process's own pipes; nothing is read from or written to them here but the start line. The mount sources are opened as objects just before the spawn (mount-sources.ts)
 * and the server's copies closed right after it; bubblewrap starts in `/`, not in the working directory
 * a tenant may change (it enters that inside the sandbox).
 */

import { ToolError } from '../tools/errors.ts';
import type { PlanArgument } from './bubblewrap-mount-plan.ts';
import { descriptorReader } from './descriptor-reader.ts';
import { MountSourceError, openMountSources } from './mount-sources.ts';
import { admitSandbox } from './sandbox-admission.ts';
import { PROGRAM_MOUNT_DESCRIPTORS_FROM } from './sandbox-arguments.ts';
import { PROGRAM_LAUNCHER_START } from './sandbox-program-launcher.ts';
import type { ProgramProcess } from './shell-sandbox.ts';
import type { UserShares } from './user-shares.ts';

/** bubblewrap writes its info once the sandbox exists; a slow host gets this long. */
const INFO_LIMIT_MS = 5000;

export interface ProgramStart {
  /** The sandbox's plan, ending with the program launcher (sandbox-arguments.ts). */
  plan: readonly PlanArgument[];
  environment: Record<string, string>;
  /** The per-user shares the sandbox joins before the program starts. */
  shares: UserShares;
  userId: string;
}

export async function startSandboxedProgram(start: ProgramStart): Promise<ProgramProcess> {
  const { shares } = start;
  let mounts: ReturnType<typeof openMountSources>;
  try {
    mounts = openMountSources(start.plan, PROGRAM_MOUNT_DESCRIPTORS_FROM);
  } catch (error) {
    if (error instanceof MountSourceError) throw new ToolError('execution_error', error.message);
    throw error;
  }
  let child: Bun.Subprocess<'pipe', 'pipe', 'pipe'>;
  try {
    child = Bun.spawn(mounts.argv, {
      cwd: '/',
      env: start.environment,
      // 0–2: the program's own; 3: bubblewrap's info (the host pid of the launcher, the sandbox's PID 1);
      // from 4: the mount sources.
      stdio: ['pipe', 'pipe', 'pipe', 'pipe', ...mounts.descriptors],
    });
  } finally {
    mounts.close();
  }
  const information = descriptorReader(child.stdio[3]);
  try {
    // Read even when there is no cgroup to join: bubblewrap must not write into a closed pipe.
    const info = await information.through('}', INFO_LIMIT_MS);
    if (shares.admits) {
      const admitted = await admitSandbox({
        shares,
        userId: start.userId,
        info,
        exited: child.exited,
        discard: () => child.kill('SIGKILL'),
      });
      // bubblewrap exits only after the sandbox's PID 1, which outlives everything else in it.
      if (admitted) void child.exited.then(() => admitted.finish());
    }
  } finally {
    information.close();
  }
  try {
    child.stdin.write(PROGRAM_LAUNCHER_START);
    await child.stdin.flush();
  } catch {
    // The sandbox ended before it read the start line: its exit status and stderr say why.
  }
  return child as unknown as ProgramProcess;
}
