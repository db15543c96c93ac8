/**
 * A stand-in for other server processes starting up while commands run: opens the shared sandbox state
 * directory the test sandboxes use (the default range's when root, the server uid's otherwise) again
 * and again for the given number of milliseconds, placing a user's accounts each time (each open used
 * to rewrite the synthesized accounts), then prints how many times it opened it.
 */
import { DEFAULT_SANDBOX_ID_RANGE } from '../../../src/sandbox/sandbox-id-range.ts';
import { SANDBOX_HOME, SANDBOX_USER } from '../../../src/sandbox/sandbox-identity.ts';
import {
  openSandboxStateDirectory,
  rangeStateDirectoryName,
  sharedStateDirectoryName,
} from '../../../src/sandbox/sandbox-state-directory.ts';

const milliseconds = Number(process.argv[2]);
const root = process.getuid?.() === 0;
const uid = root ? DEFAULT_SANDBOX_ID_RANGE.base + 1 : (process.getuid?.() ?? 0);
const identity = { uid, gid: uid, groups: [], user: SANDBOX_USER, home: SANDBOX_HOME };
const name = root ? rangeStateDirectoryName(DEFAULT_SANDBOX_ID_RANGE.base) : sharedStateDirectoryName(identity);
const end = performance.now() + milliseconds;
let opened = 0;
while (performance.now() < end) {
  openSandboxStateDirectory(identity, undefined, name).accounts(identity);
  opened += 1;
}
console.log(`opened ${opened}`);
