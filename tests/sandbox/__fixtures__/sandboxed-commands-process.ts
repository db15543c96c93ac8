/**
 * A stand-in for a server process: creates the shell sandbox the way a server does, runs one quick
 * command in a second directory (so the warm pool builds a sandbox for that plan, which then waits
 * idle), and two long commands at once (one with a setsid job and a double fork), then prints
 * `running` and waits. The test kills this process with SIGKILL and checks that nothing it started
 * survives, the idle pooled sandbox included.
 * Arguments: the marker every sleep carries, the working directory, and the quick command's directory.
 */
import { confinedTo, fixtureSandbox } from './fixture-sandbox.ts';
import { bashCommand } from '../../helpers/bash-command.ts';

const [marker, cwd, idleCwd] = process.argv.slice(2) as [string, string, string];
const sandbox = fixtureSandbox();
const reachable = confinedTo(cwd);
const idleReachable = confinedTo(idleCwd);
await sandbox.run(bashCommand('true', idleCwd, idleReachable, { timeoutMs: 60_000, maxOutputBytes: 1024 }));
const commands = [
  `setsid sleep ${marker} & (sleep ${marker} &) ; sleep ${marker}`,
  `nohup sleep ${marker} > /dev/null 2>&1 & sleep ${marker}`,
];
for (const command of commands) {
  void sandbox.run(bashCommand(command, cwd, reachable, { timeoutMs: 600_000, maxOutputBytes: 1024 }));
}
console.log('running');
setInterval(() => {}, 1000); // fixture: a process that runs until it is killed
