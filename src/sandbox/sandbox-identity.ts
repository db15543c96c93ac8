/**
 * Who sandboxed commands run as: the unprivileged sandbox uid (`MANGO_SANDBOX_UID`, default 61000)
 * when the server is root, else the server's own uid, never uid 0. The user name and home are the
 * sandbox's own (its synthesized `/etc/passwd`, sandbox-state-directory.ts).
 */
import { defaultOf } from '../config/environment-variables.ts';
import type { SandboxIdentity } from './sandbox-state-directory.ts';

/** The uid (and gid) commands run as when the server is root. Below systemd's dynamic range. */
export const DEFAULT_SANDBOX_UID = defaultOf('MANGO_SANDBOX_UID');
export const SANDBOX_USER = 'sandbox';
export const SANDBOX_HOME = '/home/sandbox';

/** The identity commands run as: the sandbox uid when the server is root, else the server's own uid. */
export function decideSandboxIdentity(serverUid: number, configuredUid: number | undefined): SandboxIdentity {
  const uid = serverUid === 0 ? (configuredUid ?? DEFAULT_SANDBOX_UID) : serverUid;
  if (uid === 0) throw new RangeError('The shell sandbox uid must not be 0 (root).');
  if (serverUid !== 0 && configuredUid !== undefined && configuredUid !== serverUid) {
    throw new RangeError(
      `MANGO_SANDBOX_UID=${configuredUid} needs the server to run as root (it runs as uid ${serverUid}, and only root can switch uid); unset it to run commands as uid ${serverUid}.`,
    );
  }
  return { uid, gid: uid, user: SANDBOX_USER, home: SANDBOX_HOME };
}
