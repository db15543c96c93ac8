/**
 * Test helper: live (non-zombie) processes whose command line contains a marker (Linux /proc), so a
 * test can see that a shell a turn started is running, and that it is gone after a cancel.
 */
import { readdir, readFile } from 'node:fs/promises';
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
