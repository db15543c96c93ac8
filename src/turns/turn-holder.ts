/**
 * Who holds a turn lease, written so that another process can prove the holder dead.
 *
 * A holder is `v1/<boot id>/<pid namespace>/<pid>/<process start time>/<random>`. Another process may
 * call it dead only when it runs under the same kernel boot and in the same pid namespace (so the pid
 * names the same process table) and that pid no longer exists or belongs to a process that started at
 * another time (pid reuse). Anything else — another machine, another container, no `/proc` — is never
 * provably dead: the lease is then left to expire. Wrongly calling a live holder dead is what this
 * avoids; wrongly waiting only costs one lease period.
 */
import { readFileSync, readlinkSync } from 'node:fs';

interface ProcessIdentity {
  bootId: string;
  pidNamespace: string;
}

function readIdentity(): ProcessIdentity | undefined {
  try {
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const pidNamespace = readlinkSync('/proc/self/ns/pid').replace(/[^0-9]/g, '');
    return bootId !== '' && pidNamespace !== '' ? { bootId, pidNamespace } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Field 22 of `/proc/PID/stat` (clock ticks after boot); undefined when there is no such process or it
 * is a zombie (exited, not yet reaped by its parent).
 */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

const identity = readIdentity();

/** A new holder name for this process (one per turn coordinator). */
export function createTurnHolder(): string {
  const random = crypto.randomUUID();
  if (!identity) return `v1/unknown/unknown/${process.pid}/unknown/${random}`;
  const started = processStartTime(process.pid) ?? 'unknown';
  return `v1/${identity.bootId}/${identity.pidNamespace}/${process.pid}/${started}/${random}`;
}

/** True only when `holder` names a process of this machine and pid namespace that no longer runs. */
export function isHolderProvablyDead(holder: string): boolean {
  if (!identity) return false;
  const [version, bootId, pidNamespace, pidText, started] = holder.split('/');
  if (version !== 'v1' || bootId !== identity.bootId || pidNamespace !== identity.pidNamespace) return false;
  const pid = Number(pidText);
  if (!Number.isSafeInteger(pid) || pid <= 0 || started === 'unknown' || started === undefined) return false;
  if (pid === process.pid) return false; // another coordinator of this very process: alive by definition
  const current = processStartTime(pid);
  return current === undefined || current !== started;
}
