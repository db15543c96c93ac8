/**
 * A process that uses the warm pool and ends while one of its sandboxes is in a chosen state. It runs
 * one call in the workspace (so the pool builds the next sandbox of that plan), brings a pooled sandbox
 * to the state, prints the state's name, then exits at once (`exit`) or waits to be killed (`wait`).
 * States: `building` (the pool has just started bubblewrap), `idle` (built, waiting for a call),
 * `handed-over` (a call has just taken it and written its command), `running` (its command runs),
 * `tearing-down` (its command ended and left 40 background processes for the waiter to kill).
 * Arguments: the workspace (its name carries the test's marker), the state, `exit` or `wait`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bashCommand } from '../../helpers/bash-command.ts';
import { waitUntil } from '../../helpers/wait-until.ts';
import { confinedTo, fixtureSandbox } from './fixture-sandbox.ts';

const [workspace, state, ending] = process.argv.slice(2) as [string, string, string];
const sandbox = fixtureSandbox();
const reachable = confinedTo(workspace);
const run = (command: string) =>
  sandbox.run(bashCommand(command, workspace, reachable, { timeoutMs: 600_000, maxOutputBytes: 1024 }));
/**
 * Waits for a file the command writes, looking every 2 ms: the state it marks (a teardown under way)
 * lasts only a moment, and the process must still be in it when it prints its name.
 */
const fileAppears = async (path: string) => {
  if (!(await waitUntil(() => existsSync(path), 60_000, 2))) throw new Error(`${path} never appeared`);
};

await run('true');
if (state !== 'building') await sandbox.poolSettled();
if (state === 'handed-over') void run('exec sleep 600');
if (state === 'running') {
  void run(`touch started; exec sleep 600`);
  await fileAppears(join(workspace, 'started'));
}
if (state === 'tearing-down') {
  void run(`for i in $(seq 40); do sleep 600 & done; touch started`);
  await fileAppears(join(workspace, 'started'));
}
console.log(state);
if (ending === 'exit') process.exit(0);
setInterval(() => {}, 1000); // fixture: a process that runs until it is killed
