/**
 * A process that owns a sandbox reaper (sandbox-reaper.ts), for tests/sandbox/sandbox-reaper.test.ts:
 * registers the groups of its first argument, forgets those of its second (comma-separated), prints
 * the reaper's pid, then ends the way its third argument says: `exit` by running out of work (the
 * reaper must not keep it alive), `SIGKILL` by killing itself.
 */
import { createSandboxReaper } from '../../../src/sandbox/sandbox-reaper.ts';

const [registerList = '', forgetList = '', ending = 'exit'] = process.argv.slice(2);
const groups = (list: string): number[] => list.split(',').filter(Boolean).map(Number);

const reaper = createSandboxReaper('/usr/bin/perl');
for (const group of groups(registerList)) reaper.register(group);
for (const group of groups(forgetList)) reaper.forget(group);
console.log(String(reaper.pid()));
if (ending === 'SIGKILL') process.kill(process.pid, 'SIGKILL');
