/**
 * A hostile tenant changing their own workspace while the server acts in it, as a separate process
 * (the server's descriptors and the tenant's names race for real). Run with Bun:
 *
 * - `swap-temp DIR LINK_TARGET`: watches DIR; every server temp file (`*.mango-tmp`) that appears is
 *   renamed away and a symlink to LINK_TARGET takes its name.
 * - `exchange A B`: swaps the entries A and B (a directory and a link) with `renameat2(RENAME_EXCHANGE)`
 *   as fast as it can.
 *
 * It prints `ready` once looping and runs until killed. It carries its own `renameat2` binding: the
 * tenant is an independent program, and must run the same against any version of the server.
 *
 * `startHostileTenant` spawns it and returns a stop function that kills it by its pid.
 */
import { dlopen, FFIType } from 'bun:ffi';
import {
  chmodSync,
  lstatSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2;

function cString(text: string): Uint8Array {
  return new TextEncoder().encode(`${text}\0`);
}

function swapTemporaryFiles(directory: string, linkTarget: string): never {
  let moved = 0;
  // Written at once: the loop below never yields to let a buffered write out.
  writeSync(1, 'ready\n');
  for (;;) {
    let names: string[];
    try {
      names = readdirSync(directory);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.endsWith('.mango-tmp')) continue;
      try {
        renameSync(join(directory, name), join(directory, `moved-away-${moved++}`));
        symlinkSync(linkTarget, join(directory, name));
      } catch {
        // The server was faster this time (renamed or removed it first).
      }
    }
  }
}

function exchangeForever(left: string, right: string): never {
  const { renameat2 } = dlopen('libc.so.6', {
    renameat2: {
      args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.u32],
      returns: FFIType.i32,
    },
  }).symbols;
  const leftName = cString(left);
  const rightName = cString(right);
  // Written at once: the loop below never yields to let a buffered write out.
  writeSync(1, 'ready\n');
  for (;;) renameat2(AT_FDCWD, leftName, AT_FDCWD, rightName, RENAME_EXCHANGE);
}

if (import.meta.main) {
  const [mode, first, second] = process.argv.slice(2);
  if (first === undefined || second === undefined) throw new Error('usage: swap-temp|exchange A B');
  if (mode === 'swap-temp') swapTemporaryFiles(first, second);
  if (mode === 'exchange') exchangeForever(first, second);
  throw new Error(`unknown mode ${mode}`);
}

/** Starts the tenant and resolves once it loops; `stop` kills it (by its pid) and waits for its exit. */
export async function startHostileTenant(
  mode: 'swap-temp' | 'exchange',
  first: string,
  second: string,
): Promise<{ stop: () => Promise<void> }> {
  const child = Bun.spawn([process.execPath, import.meta.path, mode, first, second], {
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const reader = child.stdout.getReader();
  let seen = '';
  while (!seen.includes('ready\n')) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the hostile tenant exited before it started (${mode})`);
    seen += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return {
    stop: async () => {
      child.kill('SIGKILL');
      await child.exited;
    },
  };
}

/** What a sentinel must still be after an attack: its mode, owner and (for a file) bytes. */
export function describeSentinel(path: string) {
  const stats = lstatSync(path);
  return {
    mode: stats.mode,
    uid: stats.uid,
    gid: stats.gid,
    bytes: stats.isFile() ? readFileSync(path, 'utf8') : undefined,
  };
}

/** The tenant's side between calls: the target is their own regular file again, mode 6777. */
export function resetTenantTarget(target: string, round: number): void {
  rmSync(target, { recursive: true, force: true });
  writeFileSync(target, `round ${round}\n`);
  chmodSync(target, 0o6777);
}
