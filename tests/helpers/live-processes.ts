/**
 * Test helper: live (non-zombie) processes whose command line contains a marker (Linux /proc), so a
 * test can see that a shell a turn started is running, and that it is gone after a cancel.
 */
import { readdir, readFile, readlink } from 'node:fs/promises';
import { readProcessStatus } from '../tools/shell/process-table.ts';

export async function liveProcessesWith(marker: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const commandLine = await readFile(`/proc/${entry}/cmdline`, 'utf8');
      const status = readProcessStatus(Number(entry));
      if (commandLine.includes(marker) && status && status.state !== 'Z') pids.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/**
 * Live processes of the sandboxes built for `directory`: bubblewrap's own processes carry it on their
 * command line (`--chdir`), and every process inside runs in it (and sees it at the same path).
 */
export async function sandboxProcessesIn(directory: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readProcessStatus(Number(entry));
      if (!status || status.state === 'Z') continue;
      const onCommandLine = (await readFile(`/proc/${entry}/cmdline`, 'utf8')).includes(`\0${directory}\0`);
      if (onCommandLine || (await readlink(`/proc/${entry}/cwd`)) === directory) pids.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids;
}

/** SIGKILL to each of `pids`, by pid: what a test leaves behind when its assertion failed. */
export function killEach(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
