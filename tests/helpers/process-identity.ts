/**
 * A process named so that a later run can tell whether it still lives: its pid and, on Linux, its start
 * time in clock ticks since boot (`/proc/<pid>/stat`, field 22). A pid alone is not enough, since the
 * kernel reuses pids; a pid whose start time differs is another process.
 */
import { readFileSync } from 'node:fs';

export interface ProcessIdentity {
  pid: number;
  /** Absent where there is no `/proc` (macOS): then only the pid is compared. */
  startTime?: number;
}

/** State (field 3) and start time (field 22) of `pid`, or undefined when it is gone or there is no `/proc`. */
function readStat(pid: number): { state: string; startTime: number } | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may itself contain spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3, so field 22 is fields[19].
  return { state: fields[0] ?? '', startTime: Number(fields[19]) };
}

export function identifyProcess(pid: number): ProcessIdentity {
  const stat = readStat(pid);
  return stat === undefined ? { pid } : { pid, startTime: stat.startTime };
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to another user (the postgres account, when we run as root).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the very process `identity` names is still running; a zombie has stopped running. */
export function isProcessAlive(identity: ProcessIdentity): boolean {
  if (!pidExists(identity.pid)) return false;
  if (identity.startTime === undefined) return true;
  const stat = readStat(identity.pid);
  return stat !== undefined && stat.startTime === identity.startTime && stat.state !== 'Z';
}
