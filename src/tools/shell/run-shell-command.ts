/**
 * runShellCommand: run one command in an interpreter and return what it printed, how it ended and how
 * long it took, under a budget that really stops the work.
 *
 * Guarantees:
 * - The shell runs in its own process group (see process-group.ts), with stdin closed and the allowlisted
 *   environment of shell-environment.ts. A `wrapper` (the OS sandbox) may start the interpreter inside
 *   something it builds (or built ahead of the call); the group is then the wrapper's, and killing it
 *   ends the sandbox with everything in it.
 * - A wrapper that reports the interpreter's real wait status makes the result exact: a sandbox's own
 *   exit code turns a death by signal n into 128+n, which an `exit 137` also gives. A wrapper that
 *   settles is waited for after it exits, on every path: exit, timeout, cancel. A wrapper's limit that
 *   ended a process of the command (its user's memory share) is the termination when the command ended
 *   by itself (`memory`, contracts/shell-termination.ts).
 * - An owned timer (not Bun's spawn timeout) and the caller's `signal` each kill the whole group with
 *   SIGKILL. The caller's signal counts as a timeout when its reason is a timeout (executeTool's budget
 *   aborts with a `ToolTimeoutError`, `AbortSignal.timeout()` with a `TimeoutError`) and as an abort
 *   otherwise. The first cause to claim the termination wins; later causes change nothing.
 * - The call waits for the shell to exit, not for end-of-output. After the exit it kills whatever is
 *   left in the group (a `sleep 600 &`, an `npm run dev &`), gives the pipes a short grace to deliver
 *   what was already written, then abandons them, so a process that escaped the group and still holds
 *   the pipes cannot hold the call.
 * - Each stream keeps at most `maxOutputBytes`; the rest is drained and dropped (capped-stream-reader.ts)
 *   and `truncated` is set. Output is decoded as UTF-8 without splitting a character at the cap.
 * - A non-zero exit is a normal result. Only a failure to start the interpreter throws (a classified
 *   ToolError).
 */
import { userInfo } from 'node:os';
import type {
  ShellEndTermination,
  ShellMemoryTermination,
  ShellTermination,
  ShellTerminationKind,
} from '../../contracts/shell-termination.ts';
import { errorMessage } from '../../errors/error-message.ts';
import { classifySystemError, ToolError } from '../errors.ts';
import { REAL_TOOL_TIMERS, type ToolTimers } from '../execution.ts';
import { readCappedStream } from './capped-stream-reader.ts';
import { killProcessGroup } from './process-group.ts';
import { buildShellEnvironment } from './shell-environment.ts';
import { findShellInterpreter, type ShellInterpreter, type ShellKind } from './shell-interpreter.ts';
import { decodeCapturedOutput } from './utf8-boundary.ts';

export type { ShellTermination, ShellTerminationKind };

/** A limit of the wrapper's that ended the command (its user's memory share ran out). */
export type ShellLimitTermination = Omit<ShellMemoryTermination, 'signal'>;

export interface ShellCommandResult {
  shell: ShellKind;
  command: string;
  /** The absolute directory the command ran in. */
  cwd: string;
  /** The shell's exit code; `null` when it died of a signal. */
  exitCode: number | null;
  /** The signal the shell died of (`"SIGKILL"`), or `null` when it exited. */
  signal: string | null;
  stdout: string;
  stderr: string;
  /** True when either stream went past `maxOutputBytes` and its tail was dropped. */
  truncated: boolean;
  termination: ShellTermination;
  durationMs: number;
}

export interface RunShellCommandOptions {
  shell: ShellKind;
  command: string;
  /** Absolute, existing directory; callers validate it (see shell-working-directory.ts). */
  cwd: string;
  /** The owned budget in milliseconds (> 0). */
  timeoutMs: number;
  /** Per-stream cap in bytes (a non-negative integer). */
  maxOutputBytes: number;
  /** The caller's abort (executeTool's budget, a user cancel); forwarded so the group is killed. */
  signal?: AbortSignal;
  /** The command's environment; defaults to buildShellEnvironment() for the server's own user. */
  environment?: Record<string, string>;
  /** Programs put in front of the interpreter (the OS sandbox); absent = the interpreter runs as is. */
  wrapper?: ShellCommandWrapper;
  /** Defaults to findShellInterpreter(shell). */
  interpreter?: ShellInterpreter;
  /** Timer functions for the owned budget; injectable for tests. */
  timers?: ToolTimers;
  /** How long, after the shell exited, to wait for the pipes to close before abandoning them. */
  pipeGraceMs?: number;
}

/** How the interpreter ended, as its parent saw it (not as a sandbox re-encodes it). */
export interface ShellWaitStatus {
  exitCode: number | null;
  signal: string | null;
}

/** What runShellCommand needs of a started process (a Bun subprocess has all of it). */
export interface ShellChild {
  readonly pid: number;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  readonly exited: Promise<number>;
  readonly exitCode: number | null;
  readonly signalCode: string | number | null;
}

/** A process a wrapper started, and what it can tell once the process has exited. */
export interface WrappedShellProcess {
  /** Leads its own process group (killing the group ends everything the wrapper started). */
  child: ShellChild;
  /**
   * The interpreter's real wait status, once the child has exited; undefined when nothing usable was
   * reported (the child's own exit status is used then). Waited for at most the pipe grace.
   */
  waitStatus?(): Promise<ShellWaitStatus | undefined>;
  /** Resolves once everything the wrapper started is really gone; called after the child exited. */
  settle?(): Promise<void>;
  /**
   * Called after `settle`: the wrapper's limit that ended a process of the command, or undefined. It
   * replaces `exited` or `signalled` (the shell may have exited 137 when a child was killed); a timeout
   * or a cancel that came first stays.
   */
  limitTermination?(): ShellLimitTermination | undefined;
}

/** Starts the interpreter inside whatever the wrapper builds; see the module header. */
export interface ShellCommandWrapper {
  /**
   * Starts `interpreterArguments` with `environment` in `cwd`. Throws a classified ToolError when it
   * cannot start; every later failure shows in the process's output and exit status.
   */
  start(
    interpreterArguments: readonly string[],
    environment: Record<string, string>,
  ): Promise<WrappedShellProcess>;
}

/** After the shell exits: time for output already written to arrive before the pipes are abandoned. */
export const DEFAULT_PIPE_GRACE_MS = 200;

/**
 * After the wrapper's process exits: how long its reported wait status may take to be read. The
 * record was written before the process ended, so it is there at once; the bound only matters when
 * the process loop is slow (a loaded host took over 200 ms), and giving up early would lose the
 * command's real status.
 */
export const WAIT_STATUS_GRACE_MS = 5000;

/** True when an abort reason means "the budget ran out" rather than "somebody cancelled". */
export function isTimeoutReason(reason: unknown): boolean {
  if (ToolError.isInstance(reason)) return reason.classification === 'timeout';
  return (
    typeof reason === 'object' && reason !== null && (reason as { name?: unknown }).name === 'TimeoutError'
  );
}

function validateOptions(options: RunShellCommandOptions): void {
  if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) {
    throw new RangeError(`runShellCommand: timeoutMs must be a positive number, got ${options.timeoutMs}.`);
  }
  if (!Number.isInteger(options.maxOutputBytes) || options.maxOutputBytes < 0) {
    throw new RangeError(
      `runShellCommand: maxOutputBytes must be a non-negative integer, got ${options.maxOutputBytes}.`,
    );
  }
}

/** Settles when `promise` does or after `milliseconds`, whichever is first; leaves no timer behind. */
async function waitAtMost(promise: Promise<unknown>, milliseconds: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, milliseconds);
  });
  try {
    await Promise.race([promise, elapsed]);
  } finally {
    clearTimeout(timer);
  }
}

function defaultEnvironment(interpreter: ShellInterpreter): Record<string, string> {
  const user = userInfo();
  return buildShellEnvironment({ home: user.homedir, user: user.username, shell: interpreter.executable });
}

/** The value of `promise`, or `fallback` when it has not settled after `milliseconds`. */
async function firstOf<T>(promise: Promise<T>, fallback: T, milliseconds: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const elapsed = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), milliseconds);
  });
  try {
    return await Promise.race([promise, elapsed]);
  } finally {
    clearTimeout(timer);
  }
}

/** The interpreter the call runs: the one given, else the shell's on this machine (or an error saying it is missing). */
function interpreterFor(options: RunShellCommandOptions): ShellInterpreter {
  const interpreter = options.interpreter ?? findShellInterpreter(options.shell);
  if (!interpreter) {
    throw new ToolError(
      'execution_error',
      `The ${options.shell} interpreter is not available on this machine.`,
    );
  }
  return interpreter;
}

/** Whether an abort with `reason` is the call's budget running out or a cancel. */
function causeOfAbort(reason: unknown): 'timed_out' | 'aborted' {
  return isTimeoutReason(reason) ? 'timed_out' : 'aborted';
}

/** The result of a call stopped before its interpreter started: nothing ran, nothing was written. */
function stoppedBeforeStart(
  options: RunShellCommandOptions,
  kind: 'timed_out' | 'aborted',
  durationMs: number,
): ShellCommandResult {
  const { shell, command, cwd } = options;
  return {
    shell,
    command,
    cwd,
    exitCode: null,
    signal: null,
    stdout: '',
    stderr: '',
    truncated: false,
    termination: { kind },
    durationMs,
  };
}

/** Starts the interpreter directly, leading its own process group. */
function spawnShell(argv: string[], environment: Record<string, string>, cwd: string): WrappedShellProcess {
  return {
    child: Bun.spawn(argv, {
      cwd,
      env: environment,
      stdio: ['ignore', 'pipe', 'pipe'],
      // POSIX: setsid() in the child, so the shell leads its own process group (process-group.ts).
      detached: true,
    }),
  };
}

/** A failure to start the interpreter, as the classified error the call throws. */
function startFailure(error: unknown, options: RunShellCommandOptions): ToolError {
  if (ToolError.isInstance(error)) return error;
  const message = errorMessage(error);
  return new ToolError(
    classifySystemError(error),
    `Could not start ${options.shell} in ${options.cwd}: ${message}`,
    {
      cause: error,
    },
  );
}

/**
 * How the interpreter ended, once its process has: the wait status the wrapper reports when it reports
 * one in time (the process Bun sees may be a wrapper's), else what Bun saw.
 */
async function exitStatusOf(
  started: WrappedShellProcess,
  options: RunShellCommandOptions,
): Promise<{ exitCode: number | null; exitSignal: string | null }> {
  const { child } = started;
  const reported = started.waitStatus
    ? await firstOf(started.waitStatus(), undefined, Math.max(options.pipeGraceMs ?? 0, WAIT_STATUS_GRACE_MS))
    : undefined;
  const exitSignal = reported ? reported.signal : child.signalCode === null ? null : String(child.signalCode);
  return { exitCode: reported ? reported.exitCode : child.exitCode, exitSignal };
}

/** Runs one shell command; see the module header for what it guarantees. */
export async function runShellCommand(options: RunShellCommandOptions): Promise<ShellCommandResult> {
  validateOptions(options);
  const { shell, command, cwd, signal } = options;
  const interpreter = interpreterFor(options);
  const startedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAt);

  let termination: ShellTermination | undefined;
  /** The first cause to call this decides the termination; later calls are ignored. */
  const claim = (candidate: ShellTermination): boolean => {
    if (termination !== undefined) return false;
    termination = candidate;
    return true;
  };

  if (signal?.aborted) return stoppedBeforeStart(options, causeOfAbort(signal.reason), elapsed());

  const argv = interpreter.argumentsFor(command);
  const environment = options.environment ?? defaultEnvironment(interpreter);
  let started: WrappedShellProcess;
  try {
    // Without a wrapper the start is synchronous, so the budget's timer is armed in the same tick.
    started = options.wrapper
      ? await options.wrapper.start(argv, environment)
      : spawnShell(argv, environment, cwd);
  } catch (error) {
    throw startFailure(error, options);
  }
  const { child } = started;
  const processGroupId = child.pid;
  const stdoutReading = readCappedStream(child.stdout, options.maxOutputBytes);
  const stderrReading = readCappedStream(child.stderr, options.maxOutputBytes);

  const stop = (kind: 'timed_out' | 'aborted') => {
    if (claim({ kind, signal: 'SIGKILL' })) killProcessGroup(processGroupId);
  };
  const timers = options.timers ?? REAL_TOOL_TIMERS;
  const timer = timers.setTimeout(() => stop('timed_out'), options.timeoutMs);
  const onAbort = () => stop(causeOfAbort(signal?.reason));
  signal?.addEventListener('abort', onAbort, { once: true });
  // A wrapper may have taken a moment to start: an abort meanwhile found no listener yet.
  if (signal?.aborted) onAbort();

  try {
    await child.exited;
    const { exitCode, exitSignal } = await exitStatusOf(started, options);
    const ended: ShellEndTermination =
      exitSignal === null ? { kind: 'exited' } : { kind: 'signalled', signal: exitSignal };
    const endedByItself = claim(ended);
    // Whatever the shell left behind in its group does not outlive the call.
    if (process.platform !== 'win32') killProcessGroup(processGroupId);
    if (started.settle) await started.settle();
    const limited = endedByItself ? started.limitTermination?.() : undefined;
    if (limited) termination = exitSignal === null ? limited : { ...limited, signal: exitSignal };

    const bothEnded = Promise.all([stdoutReading.result, stderrReading.result]);
    await waitAtMost(bothEnded, options.pipeGraceMs ?? DEFAULT_PIPE_GRACE_MS);
    await Promise.all([stdoutReading.abandon(), stderrReading.abandon()]);
    const [stdout, stderr] = await bothEnded;

    return {
      shell,
      command,
      cwd,
      exitCode,
      signal: exitSignal,
      stdout: decodeCapturedOutput(stdout.bytes, stdout.truncated),
      stderr: decodeCapturedOutput(stderr.bytes, stderr.truncated),
      truncated: stdout.truncated || stderr.truncated,
      termination: termination ?? { kind: 'exited' },
      durationMs: elapsed(),
    };
  } finally {
    timers.clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    if (child.exitCode === null && child.signalCode === null) killProcessGroup(processGroupId);
  }
}
