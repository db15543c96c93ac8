/**
 * Test helper: a fixture process in the server's place (__fixtures__/file-worker-server.ts, or another
 * that speaks the same lines: `{"ready":…}` first, `{"done":…}` after each `turn`, exit on `quit`), its
 * JSON lines read one at a time, and the processes it started, from /proc.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURE = join(import.meta.dir, '__fixtures__', 'file-worker-server.ts');

export interface Ready {
  ready: boolean;
  pid: number;
  base: string;
  alice: string;
  workers: number;
}

/** The pids below `pid` (children, theirs, …). */
export function descendantsOf(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.shift() as number) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Whether `pid` is a live process (not gone, not a zombie). */
export function isLive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** A fixture process (by default the file tools' one) whose file work runs in `mode`. */
export function startServerProcess(mode: 'worker' | 'in-process', fixture = FIXTURE) {
  const child = Bun.spawn([process.execPath, fixture, mode], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const reader = child.stdout.getReader();
  let buffered = '';
  const nextLine = async (): Promise<unknown> => {
    for (;;) {
      const newline = buffered.indexOf('\n');
      if (newline !== -1) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        return JSON.parse(line);
      }
      const { done, value } = await reader.read();
      if (done) throw new Error('the fixture ended before it answered');
      buffered += new TextDecoder().decode(value);
    }
  };
  let base: string | undefined;
  return {
    child,
    async ready(): Promise<Ready> {
      const ready = (await nextLine()) as Ready;
      base = ready.base;
      return ready;
    },
    async turn(kind: 'turn' | 'turn-with-path-settings' = 'turn'): Promise<string[]> {
      child.stdin.write(`${kind}\n`);
      await child.stdin.flush();
      return ((await nextLine()) as { done: string[] }).done;
    },
    async quit(): Promise<void> {
      child.stdin.write('quit\n');
      await child.stdin.flush();
      await child.exited;
    },
    /** Kills the fixture if it still runs and removes its layout. */
    cleanUp(): void {
      child.kill('SIGKILL');
      if (base !== undefined) rmSync(base, { recursive: true, force: true });
    },
  };
}
