/**
 * Joining a sandbox to its user's shares (user-shares.ts: the process limit, the memory share, the CPU
 * share) before it runs anything. A command's waiter (sandbox-waiter.ts) and a program's launcher
 * (sandbox-program-launcher.ts) both start nothing until the server hands them their start, so a sandbox
 * joined first has every process of what it runs counted, with no window. A sandbox that cannot be
 * joined is discarded and nothing runs: the shares fail closed.
 */
import { ToolError } from '../tools/errors.ts';
import { parseSandboxInitPid } from './sandbox-teardown.ts';
import type { AdmittedSandbox, UserShares } from './user-shares.ts';

function killSandboxInit(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/** How long a sandbox that reported no pid is given to show it failed by exiting. */
const FAILED_START_LIMIT_MS = 1000;

export interface SandboxAdmission {
  shares: UserShares;
  userId: string;
  /** What bubblewrap wrote on its info descriptor ('' when nothing came in time). */
  info: string;
  /** Resolves when the sandbox process exited. */
  exited: Promise<unknown>;
  /** Kills the sandbox with everything in it. */
  discard: () => void;
}

/**
 * Moves the sandbox's PID 1 into its user's cgroups. Without a pid, a sandbox that exits at once is
 * let go on (bubblewrap failed before it started anything: its exit status and message say why) and
 * nothing is admitted; one that still runs is discarded, because what it might run could not be
 * counted.
 */
export async function admitSandbox(admission: SandboxAdmission): Promise<AdmittedSandbox | undefined> {
  const pid = parseSandboxInitPid(admission.info);
  const failed =
    pid === undefined &&
    (await Promise.race([
      admission.exited.then(() => true),
      Bun.sleep(FAILED_START_LIMIT_MS).then(() => false),
    ]));
  try {
    if (pid !== undefined) return admission.shares.admit(admission.userId, pid);
    if (!failed) throw new Error('per-user limits: bubblewrap did not report the sandbox it started.');
    return undefined;
  } catch (error) {
    // The sandbox's PID 1 first: a bubblewrap killed in the middle of its setup can leave it waiting,
    // re-parented to init, so killing bubblewrap alone is not enough. It is this sandbox's own process
    // (bubblewrap reported it a moment ago), killed by its pid.
    if (pid !== undefined) killSandboxInit(pid);
    admission.discard();
    // The message names the share first (user-shares.ts): "per-user memory share: EACCES …".
    throw new ToolError('execution_error', `The shell sandbox cannot apply the ${(error as Error).message}`);
  }
}
