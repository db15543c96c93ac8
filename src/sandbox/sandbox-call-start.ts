/**
 * Starting one call's interpreter in its sandbox: the pooled one of the same key when it is ready (or
 * becomes ready) and still mounts the objects at its paths, else one built now; then joining the
 * user's shares (user-shares.ts), handing over the command, and, once it ended, waiting for the
 * namespace to be gone and reading whether the user's memory share ended one of its processes.
 *
 * A sandbox built ahead mounts the objects that were at its paths when it was built
 * (mount-sources.ts): it is handed over only while every source is still that object; otherwise it is
 * discarded and the call builds its own, which fails with an `execution_error` when a source is not
 * the validated object (a tenant's swap under way).
 */
import { ToolError } from '../tools/errors.ts';
import type { WrappedShellProcess } from '../tools/shell/run-shell-command.ts';
import type { PlanArgument } from './bubblewrap-mount-plan.ts';
import type { LaunchedSandbox } from './launched-sandbox.ts';
import { MountSourceError, mountSourcesUnchanged } from './mount-sources.ts';
import { admitSandbox } from './sandbox-admission.ts';
import { type SandboxPool, sandboxKey } from './sandbox-pool.ts';
import { waitForSandboxTeardown } from './sandbox-teardown.ts';
import type { AdmittedSandbox, ShareTermination, UserShares } from './user-shares.ts';

/** How long a call waits for a pooled sandbox that is still being built before it builds its own. */
const POOLED_READY_LIMIT_MS = 5000;
/** bubblewrap writes its info right after it started; this bounds the wait if it never did. */
const SETTLE_INFO_LIMIT_MS = 200;

export interface SandboxCallStart {
  pool: SandboxPool;
  /** The per-user shares the sandbox joins before it runs the command. */
  shares: UserShares;
  plan: readonly PlanArgument[];
  /** Builds a sandbox now, when no pooled one fits (launchSandbox with the owner's reaper). */
  launch(plan: readonly PlanArgument[]): LaunchedSandbox;
  /** The waiter's message (encodeWaiterMessage). */
  message: Uint8Array;
  timeoutMs: number;
  userId: string;
  /** Told which sandbox the call got, and whether it was built ahead. */
  onStart(prebuilt: boolean, sandbox: LaunchedSandbox): void;
}

export async function startSandboxForCall(start: SandboxCallStart): Promise<WrappedShellProcess> {
  const { pool, shares, plan } = start;
  let sandbox: LaunchedSandbox | undefined = pool.take(sandboxKey(plan));
  // The call's own budget starts once it runs; waiting for a pooled sandbox must not outlast it.
  const readyLimit = Math.min(POOLED_READY_LIMIT_MS, start.timeoutMs);
  const prebuilt =
    sandbox !== undefined && (await sandbox.ready(readyLimit)) && mountSourcesUnchanged(sandbox.mounts);
  if (!prebuilt) {
    sandbox?.discard();
    try {
      sandbox = start.launch(plan);
    } catch (error) {
      if (error instanceof MountSourceError) throw new ToolError('execution_error', error.message);
      throw error;
    }
  }
  const chosen = sandbox as LaunchedSandbox;
  start.onStart(prebuilt, chosen);
  let admitted: AdmittedSandbox | undefined;
  let ended: ShareTermination | undefined;
  if (shares.admits) {
    admitted = await admitSandbox({
      shares,
      userId: start.userId,
      info: await chosen.info(readyLimit),
      exited: chosen.child.exited,
      discard: () => chosen.discard(),
    });
  }
  await chosen.handOver(start.message);
  return {
    child: chosen.child,
    waitStatus: () => chosen.waitStatus(),
    settle: async () => {
      try {
        await waitForSandboxTeardown(await chosen.info(SETTLE_INFO_LIMIT_MS));
      } finally {
        chosen.release();
        // The namespace is gone: no process of it can be killed any more, and its cgroup goes.
        ended = admitted?.finish();
      }
    },
    limitTermination: () => ended,
  };
}
