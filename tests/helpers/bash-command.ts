/**
 * A bash command for a sandbox's `run`, as the sandbox tests and their fixture processes send it: no
 * denied paths or variables, no chat, and the given command, directory and reachable set; user, time
 * limit and output cap as given or the tests' usual ones (the user is the sandbox layout's, alice,
 * whose uid owns the layout's workspace).
 */
import type { SandboxedCommand } from '../../src/sandbox/shell-sandbox.ts';
import type { ReachableSet } from '../../src/tools/access/reachable-set.ts';

export function bashCommand(
  command: string,
  cwd: string,
  reachable: ReachableSet,
  options: { userId?: string; timeoutMs?: number; maxOutputBytes?: number; signal?: AbortSignal } = {},
): SandboxedCommand {
  return {
    shell: 'bash',
    command,
    cwd,
    reachable,
    deniedPaths: [],
    deniedEnvVars: [],
    interpreterPath: '/usr/bin/bash',
    userId: options.userId ?? 'alice',
    chatId: undefined,
    timeoutMs: options.timeoutMs ?? 20_000,
    maxOutputBytes: options.maxOutputBytes ?? 4096,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
}
