/**
 * The interface every shell command runs through. A shell tool never spawns an interpreter itself: it
 * hands the command, its working directory and the call's reachable set to a `ShellSandbox`, which
 * decides how the command is contained (bubblewrap on this host, nothing when an operator switched the
 * sandbox off) and returns the result in the one shape the shell tools report. A remote sandbox
 * replaces the local one by implementing this interface in one module.
 *
 * A sandbox that cannot contain commands says so through `status()`: shell tools are then not offered,
 * enabling them is refused with the reason, and a direct call fails with it. Nothing runs unsandboxed
 * unless the operator chose `off`.
 */
import type { ReachableSet } from '../tools/access/reachable-set.ts';
import type { RunShellCommandOptions, ShellCommandResult } from '../tools/shell/run-shell-command.ts';

/** `bubblewrap`: every command in its own OS sandbox. `off`: the operator switched containment off. */
export type ShellSandboxMode = 'bubblewrap' | 'off';

export type ShellSandboxStatus =
  | { available: true; mode: ShellSandboxMode; summary: string }
  | { available: false; reason: string };

/** One command to run, with everything the sandbox needs to build its view of the machine. */
export interface SandboxedCommand
  extends Omit<RunShellCommandOptions, 'environment' | 'wrapper' | 'interpreter'> {
  /** Real path of an existing directory inside `reachable` (validated by the caller). */
  cwd: string;
  /** What the call may reach; the sandbox shows exactly this, at the same paths. */
  reachable: ReachableSet;
  /** Real paths the user denied (`deniedPaths`); covered and unreadable inside the sandbox. */
  deniedPaths: readonly string[];
  /** The user's `deniedEnvVars`. */
  deniedEnvVars: readonly string[];
  /** Absolute path of the interpreter executable. */
  interpreterPath: string;
  /** For the per-command log line. */
  userId: string;
  chatId: string | undefined;
}

/**
 * A long-running program (an MCP server speaking on stdin/stdout) to start in a sandbox of its own,
 * built once for it like a command's, with the same reachable set rules.
 */
export interface SandboxedProgram {
  /** The program's absolute path and its arguments. */
  argv: readonly string[];
  /** Real path of an existing directory inside `reachable`. */
  cwd: string;
  /** What the program may reach; the sandbox shows exactly this, at the same paths. */
  reachable: ReachableSet;
  /** Variables it gets on top of the sandbox's allowlisted environment. */
  environment: Readonly<Record<string, string>>;
  /** `none`: an empty network namespace, as for commands. `host`: the server's network. */
  network: 'none' | 'host';
  /** The Mango user the program runs for: its processes count against that user's process limit. */
  userId: string;
  /**
   * Files of the server's own the program runs on (a runtime, its code), each mounted read-only by
   * descriptor at its destination: the one exception to "nothing of the installation is visible",
   * used by the file worker (file-worker-sandbox.ts).
   */
  runtimeFiles?: readonly RuntimeFile[];
  /** True: the program gets `environment` alone, not the shell's allowlisted variables beneath it. */
  environmentOnly?: boolean;
}

/** A host file mounted read-only into a program's sandbox. */
export interface RuntimeFile {
  /** Absolute real path on the host, opened with links refused. */
  source: string;
  /** Where the sandbox shows it; outside every root of the reachable set. */
  destination: string;
}

/** A started program: its stdin, stdout and stderr are pipes; killing it ends its sandbox. */
export type ProgramProcess = Bun.Subprocess<'pipe', 'pipe', 'pipe'>;

/** How to start a {@link SandboxedProgram}: `argv` with `environment` in `cwd`. */
export interface SandboxedProgramLaunch {
  /**
   * What will run. A sandbox that mounts by descriptor shows each such mount with its source path
   * here; the vector bubblewrap gets is made by `start()`, when the sources are opened.
   */
  argv: string[];
  environment: Record<string, string>;
  cwd: string;
  /**
   * Spawns the program and resolves once it runs within its limits (its sandbox joined to the user's
   * process cgroup, where there is one). Throws a classified ToolError when a limit cannot be applied;
   * the sandbox is then killed before the program started.
   */
  start(): Promise<ProgramProcess>;
}

export interface ShellSandbox {
  /** Whether commands can run, and how they are contained. Cheap; never throws. */
  status(): ShellSandboxStatus;
  /**
   * Runs one command. Throws a classified ToolError when the sandbox is unavailable or cannot start;
   * every other outcome (any exit, a signal, a timeout, a cancel) is a result.
   */
  run(command: SandboxedCommand): Promise<ShellCommandResult>;
  /**
   * The owner files the server creates for `userId` in a workspace must have so that the user's
   * commands can change them, when the server must hand them over (it runs as root, commands as the
   * user's own uid); undefined when nothing is needed. Throws a classified ToolError when the user's
   * uid cannot be had (a full range).
   */
  fileOwner?(userId: string): Promise<{ uid: number; gid: number } | undefined>;
  /**
   * The group every sandboxed uid carries when each user has a uid of their own: the workspaces
   * directory is `0710` root and this group, so those uids can pass it and no other host account can.
   * Undefined when commands run as the server's own uid.
   */
  sandboxGroup?(): number | undefined;
  /** Makes the sandbox unavailable and ends what it holds (sandboxes built ahead). */
  dispose?(): void;
  /**
   * The launch of a long-running program in a sandbox of its own; the caller spawns it and owns the
   * process (killing it ends the sandbox). Absent when this sandbox cannot contain programs.
   * Throws a classified ToolError when the sandbox is unavailable.
   */
  prepareProgram?(program: SandboxedProgram): Promise<SandboxedProgramLaunch>;
  /**
   * What a program started by `prepareProgram` finds: present exactly when `prepareProgram` is, so a
   * program is checked against the sandbox that will run it (mcp-client/stdio-program-check.ts).
   */
  programView?(variables: Readonly<Record<string, string>>): ProgramView;
  /**
   * The launch of a file worker (src/file-worker/) for `worker.userId` over `worker.reachable`: the
   * program `script` run by this process's Bun runtime in a sandbox of that user, with nothing else of
   * the installation visible and no variable but its own. Absent when this sandbox cannot hold one.
   * Throws a classified ToolError when the sandbox is unavailable.
   */
  prepareFileWorker?(worker: FileWorkerLaunchRequest): Promise<SandboxedProgramLaunch>;
  /**
   * A watch on `userId`'s per-user process limit from now (user-shares.ts): called after work of theirs
   * failed, the message for it (`subject` what could not run) when the limit refused a process of theirs
   * since or holds them at it, in the words a command refused for it gets; otherwise undefined. Absent
   * where no per-user limit is kept.
   */
  watchProcessLimit?(userId: string, subject: string): () => string | undefined;
}

/** What a file worker's sandbox is built for. */
export interface FileWorkerLaunchRequest {
  userId: string;
  reachable: ReachableSet;
  /** The worker's program, one JavaScript file (file-worker-bundle.ts). */
  script: string;
  /** grep's worker thread program, one JavaScript file the worker starts threads on (file-worker-bundle.ts). */
  grepWorker: string;
  /** glob's thread program, the same (file-worker-bundle.ts). */
  globThread: string;
}

/** Where a sandboxed program's name is looked up, and which host directories it can see. */
export interface ProgramView {
  /** The `PATH` a program with its own `variables` gets: theirs, else the sandbox environment's. */
  searchPath: string;
  /**
   * The host directories it sees besides its reachable set, at the same paths; undefined when it sees
   * the whole host (no containment).
   */
  systemDirectories: readonly string[] | undefined;
}

/**
 * Where a name is looked up when an environment has no `PATH`: the default of glibc's `execvp`, which is
 * what a program started without one would search.
 */
export const DEFAULT_SEARCH_PATH = '/bin:/usr/bin';

/** The program search path of an environment a sandbox gives a program. */
export function searchPathOf(variables: Readonly<Record<string, string | undefined>>): string {
  return variables.PATH ?? DEFAULT_SEARCH_PATH;
}
