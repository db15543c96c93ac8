/**
 * Test helper: what /proc says about processes (Linux). Zombies (state Z) have exited and hold no
 * resources but a table slot, so they count as gone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { waitUntil } from '../../helpers/wait-until.ts';

export interface ProcessStatus {
  pid: number;
  state: string;
  parentPid: number;
  processGroupId: number;
  sessionId: number;
}

/** Parses /proc/<pid>/stat, or `undefined` when the process is gone. */
export function readProcessStatus(pid: number): ProcessStatus | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is parenthesized and may contain spaces or parentheses itself.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return {
    pid,
    state: fields[0] ?? '?',
    parentPid: Number(fields[1]),
    processGroupId: Number(fields[2]),
    sessionId: Number(fields[3]),
  };
}

/** Pids of live (non-zombie) processes in a process group. */
export function liveProcessGroupMembers(processGroupId: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const status = readProcessStatus(Number(entry));
    if (status && status.processGroupId === processGroupId && status.state !== 'Z') members.push(status.pid);
  }
  return members;
}

/** True when the process is gone or a zombie. */
export function isProcessGone(pid: number): boolean {
  const status = readProcessStatus(pid);
  return status === undefined || status.state === 'Z';
}

/**
 * Waits until `condition` holds, polling every 20 ms, for at most `timeoutMs` (a generous bound: a
 * SIGKILLed process needs a moment to leave the table). Returns whether it held.
 */
export function eventually(condition: () => boolean, timeoutMs = 3000): Promise<boolean> {
  return waitUntil(condition, timeoutMs);
}

/** Reads a pid a command wrote to a file, waiting for it to appear. */
export async function readPidFile(path: string, timeoutMs = 5000): Promise<number> {
  let pid = Number.NaN;
  await eventually(() => {
    try {
      pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    } catch {
      return false;
    }
    return Number.isInteger(pid);
  }, timeoutMs);
  if (!Number.isInteger(pid)) throw new Error(`No pid appeared in ${path}.`);
  return pid;
}
