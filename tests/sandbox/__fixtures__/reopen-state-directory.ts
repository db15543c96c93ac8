/**
 * A stand-in for other server processes starting up while commands run: opens the shared sandbox state
 * directory of the default identity again and again for the given number of milliseconds (each open
 * used to rewrite the synthesized accounts), then prints how many times it opened it.
 */
import { DEFAULT_SANDBOX_UID, SANDBOX_HOME, SANDBOX_USER } from '../../../src/sandbox/sandbox-identity.ts';
import { openSandboxStateDirectory } from '../../../src/sandbox/sandbox-state-directory.ts';

const milliseconds = Number(process.argv[2]);
const uid = process.getuid?.() === 0 ? DEFAULT_SANDBOX_UID : (process.getuid?.() ?? 0);
const identity = { uid, gid: uid, user: SANDBOX_USER, home: SANDBOX_HOME };
const end = performance.now() + milliseconds;
let opened = 0;
while (performance.now() < end) {
  openSandboxStateDirectory(identity);
  opened += 1;
}
console.log(`opened ${opened}`);
