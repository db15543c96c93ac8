/**
 * How a shell command ended, the `termination` of a shell tool's result. The shell runner decides it,
 * the sandbox adds what only it can see (a memory share that ran out), and the web app's card shows it,
 * so the shape sits at the bottom of the layer order (docs/architecture.md), as types only.
 */

/**
 * `exited`: the shell exited by itself (any exit code). `signalled`: the shell died of a signal nobody
 * here sent (`signal` names it). `timed_out` / `aborted`: the budget or the caller stopped it; `signal`
 * is the `SIGKILL` that was sent to the group.
 */
export interface ShellEndTermination {
  kind: 'exited' | 'timed_out' | 'aborted' | 'signalled';
  signal?: string;
}

/**
 * `memory`: the kernel's OOM killer ended a process of the command because its user's memory share
 * (`limitBytes`, all their commands and MCP servers together) ran out. `signal` is the signal the shell
 * itself died of; absent when the shell exited (a killed child makes it exit with 137).
 */
export interface ShellMemoryTermination {
  kind: 'memory';
  limitBytes: number;
  signal?: string;
}

export type ShellTermination = ShellEndTermination | ShellMemoryTermination;

export type ShellTerminationKind = ShellTermination['kind'];
