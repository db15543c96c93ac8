/**
 * A hostile tenant's half of the swap attack, as a process of its own: exchanges two entries of one
 * directory with `renameat2(RENAME_EXCHANGE)` in a tight loop (about 3000 times a second) until its
 * stdin ends, then leaves the first name as it found it and prints how many exchanges it made.
 *
 * Self-contained (bun:ffi straight to libc) so it runs against any version of the server's code.
 *
 * Usage: bun rename-exchanger.ts DIRECTORY NAME_A NAME_B
 */
import { dlopen, FFIType } from 'bun:ffi';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';

const AT_FDCWD = -100;
const RENAME_EXCHANGE = 0x2;
/** Exchanges in a row, then a millisecond's pause: about 3000 a second, as in the attack seen. */
const BATCH = 3;
const PAUSE_MS = 1;

const [directory, nameA, nameB] = process.argv.slice(2);
if (!directory || !nameA || !nameB) throw new Error('usage: rename-exchanger.ts DIRECTORY NAME_A NAME_B');
const first = join(directory, nameA);
const second = join(directory, nameB);
const { symbols } = dlopen('libc.so.6', {
  renameat2: {
    args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.u32],
    returns: FFIType.i32,
  },
});
const encode = (text: string) => new TextEncoder().encode(`${text}\0`);
const from = encode(first);
const to = encode(second);
const exchange = () => {
  if (symbols.renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) !== 0) {
    throw new Error(`renameat2 RENAME_EXCHANGE ${first} ${second} failed`);
  }
};
const firstWasDirectory = lstatSync(first).isDirectory();

let stopped = false;
process.stdin.on('end', () => {
  stopped = true;
});
process.stdin.on('data', () => {});
process.stdin.resume();

let exchanges = 0;
while (!stopped) {
  for (let index = 0; index < BATCH; index += 1) {
    exchange();
    exchanges += 1;
  }
  Bun.sleepSync(PAUSE_MS); // fixture: the attacker's pause between batches, its pace
  // Let the stdin events in: a synchronous loop alone would never see the end.
  await Bun.sleep(0); // fixture: the swap loop yielding
}
if (lstatSync(first).isDirectory() !== firstWasDirectory) {
  exchange();
  exchanges += 1;
}
console.log(`exchanged ${exchanges}`);
