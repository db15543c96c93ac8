/**
 * The start-up probe: one sandbox built like every other (its root, the state directory, mounted by
 * descriptor), run synchronously before any user command, that must show uid ≠ 0, `CapEff` 0 and
 * `NoNewPrivs` 1 inside. Until it has, the sandbox is unavailable with the reason (fails closed). A
 * bubblewrap without `--bind-fd` fails it, and the reason names the version needed.
 */
import { errorMessage } from '../errors/error-message.ts';
import type { PlanArgument } from './bubblewrap-mount-plan.ts';
import { openMountSources } from './mount-sources.ts';
import { MOUNT_DESCRIPTORS_FROM } from './sandbox-arguments.ts';
import { encodeWaiterMessage } from './sandbox-waiter.ts';

/** The probe's command: what the sandbox must show about itself before any user command runs. */
const PROBE_COMMAND = 'id -u; grep -E "^(CapEff|NoNewPrivs):" /proc/self/status';

/** Why the probe's output does not show an unprivileged sandbox, or undefined when it does. */
export function judgeProbeOutput(output: string): string | undefined {
  const lines = output.trim().split('\n');
  const uid = lines[0]?.trim();
  if (uid === undefined || !/^\d+$/.test(uid))
    return `the probe printed no uid (got ${JSON.stringify(output)}).`;
  if (uid === '0') return 'a command in the probe sandbox ran as uid 0 (root).';
  const capabilities = /^CapEff:\s*([0-9a-f]+)$/m.exec(output)?.[1];
  if (capabilities === undefined || /[^0]/.test(capabilities)) {
    return `a command in the probe sandbox kept capabilities (CapEff: ${capabilities ?? 'missing'}).`;
  }
  if (!/^NoNewPrivs:\s*1$/m.test(output)) return 'no_new_privs was not set in the probe sandbox.';
  return undefined;
}

export interface SandboxProbe {
  /** The bubblewrap program, for the message when it is too old. */
  bwrap: string;
  /** The probe sandbox's plan (sandbox-arguments.ts with `probing`), ending with the waiter. */
  plan: readonly PlanArgument[];
  /** The environment the probe's `/bin/sh` gets. */
  environment: Readonly<Record<string, string>>;
}

/** Runs the probe (about 10 ms); returns why the sandbox cannot run, or undefined when it can. */
export function runSandboxProbe(probe: SandboxProbe): string | undefined {
  let mounts: ReturnType<typeof openMountSources>;
  try {
    mounts = openMountSources(probe.plan, MOUNT_DESCRIPTORS_FROM);
  } catch (error) {
    return `the probe sandbox could not open its mounts: ${(error as Error).message}`;
  }
  try {
    const result = Bun.spawnSync(mounts.argv, {
      cwd: '/',
      env: {},
      // 3 and 4 stay unused (the probe has no records or info to read); the mounts follow them.
      stdio: [
        encodeWaiterMessage(['/bin/sh', '-c', PROBE_COMMAND], probe.environment),
        'pipe',
        'pipe',
        'ignore',
        'ignore',
        ...mounts.descriptors,
      ],
      timeout: 10_000,
    });
    if (result.exitCode !== 0) {
      const stderr = result.stderr.toString().trim();
      if (/Unknown option --(ro-)?bind-fd/.test(stderr)) {
        return `${probe.bwrap} has no --bind-fd, which the sandbox needs to mount each directory as the object the server checked (bubblewrap 0.10 or later, or Debian 12's 0.8.0-2+deb12u1): ${stderr}`;
      }
      return `the probe sandbox failed (exit ${result.exitCode}${result.signalCode ? `, ${result.signalCode}` : ''}): ${stderr || 'no message'}`;
    }
    return judgeProbeOutput(result.stdout.toString());
  } catch (error) {
    return `the probe sandbox could not start: ${errorMessage(error)}`;
  } finally {
    mounts.close();
  }
}
