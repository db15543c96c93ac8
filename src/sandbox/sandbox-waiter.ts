/**
 * PID 1 of every sandbox (bubblewrap `--as-pid-1`, so there is no separate bubblewrap init): a few
 * lines of Perl (sandbox-waiter.pl; perl-base is part of every Debian-family system, in `/usr`) that
 * wait for the call, run its interpreter, and report the interpreter's real wait status.
 *
 * Guarantees:
 * - The command and its environment reach the sandbox only when the call starts: the waiter reads
 *   them from its stdin (written by the server when it hands the sandbox to a call, see
 *   launched-sandbox.ts), so a sandbox can be built before the call and still receives nothing ahead
 *   of it. bubblewrap and the waiter themselves start with an empty environment, so `/proc/1/environ`
 *   and the waiter's `/proc/<pid>/environ` hold nothing at all.
 * - The interpreter gets stdin from `/dev/null` and exactly the environment of the message.
 * - The real wait status: bubblewrap itself reports a death by signal n as exit 128+n,
 *   indistinguishable from an `exit 137`; the waiter writes `status <raw wait status>` to descriptor 3
 *   instead, after `ready` when it started. It moves descriptor 3 to a close-on-exec descriptor first,
 *   so the command cannot write a fake record, and as PID 1 of the namespace it ignores every signal
 *   sent from inside it, so the command cannot kill it either.
 * - When the interpreter has exited, the waiter kills everything else in the namespace (`kill -KILL
 *   -1` from PID 1 reaches every other process of its namespace and nothing outside it; it checks that
 *   it is PID 1 first) and exits; the kernel ends the namespace with it, and bubblewrap, which reaps
 *   it, exits only after that.
 * - The interpreter is forked and executed by the waiter itself (Perl's `system` retries a fork that
 *   fails for want of a process slot every 5 s, for as long as it fails). A fork that fails is
 *   reported at once, `start-failed fork <errno> <text>`, and the call fails naming the limit
 *   (user-shares.ts); an exec that fails is `start-failed exec <errno> <text>`, exit 127 as a shell
 *   reports a missing command. Orphans reparented to the waiter are reaped while the interpreter runs.
 * - Without a descriptor 3 (the start-up probe) the waiter runs the interpreter the same way and
 *   reports nothing.
 */
import { readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { ToolError } from '../tools/errors.ts';
import type { ShellWaitStatus } from '../tools/shell/run-shell-command.ts';

/**
 * Where the waiter's script (sandbox-waiter.pl, placed in the state directory by
 * sandbox-state-directory.ts) is mounted read-only inside every sandbox. `/dev` is a fresh tmpfs of
 * each sandbox, also in operator mode where `/` is the host's, so the mount point is never made on the
 * host.
 */
export const WAITER_PATH = '/dev/mango-sandbox-waiter.pl';

/** The waiter's source, read once from the file next to this module (`npm run check` compiles it). */
export const WAITER_SCRIPT = readFileSync(new URL('./sandbox-waiter.pl', import.meta.url), 'utf8');

/** The argument vector that starts the waiter. */
export function waiterArguments(perlPath: string): string[] {
  return [perlPath, WAITER_PATH];
}

/** The message that hands a waiting sandbox its interpreter arguments and environment. */
export function encodeWaiterMessage(
  interpreterArguments: readonly string[],
  environment: Readonly<Record<string, string>>,
): Uint8Array {
  const entries = Object.entries(environment).map(([name, value]) => `${name}=${value}`);
  const fields = [String(interpreterArguments.length), ...interpreterArguments, ...entries];
  if (fields.some((field) => field.includes('\0'))) {
    throw new ToolError('validation_failed', 'A command and its environment cannot contain a NUL byte.');
  }
  if (Object.keys(environment).some((name) => name === '' || name.includes('='))) {
    throw new ToolError('validation_failed', 'An environment variable name cannot be empty or contain "=".');
  }
  return new TextEncoder().encode(fields.map((field) => `${field}\0`).join(''));
}

const SIGNAL_NAMES = new Map<number, string>(
  Object.entries(constants.signals).map(([name, number]) => [number as number, name]),
);

/** The name of signal `number` (`9` → `SIGKILL`), or `SIG<number>` for one this platform has no name for. */
export function signalName(number: number): string {
  return SIGNAL_NAMES.get(number) ?? `SIG${number}`;
}

/** Each errno's first name: EAGAIN before its alias EWOULDBLOCK. */
const ERRNO_NAMES = new Map<number, string>();
for (const [name, number] of Object.entries(constants.errno)) {
  if (!ERRNO_NAMES.has(number)) ERRNO_NAMES.set(number, name);
}

/**
 * What the waiter reported after `ready`: the interpreter's wait status, or why it never ran. `fork`:
 * no process could be made for it (EAGAIN: its user's processes are at their limit), so the call
 * fails saying so. `exec`: the process could not become the interpreter (ENOENT: it is missing in the
 * sandbox), the conventional "command not found".
 */
export type WaiterRecord =
  | { kind: 'status'; status: ShellWaitStatus }
  | { kind: 'start-failed'; step: 'fork' | 'exec'; errno: string; reason: string };

/** Reads the waiter's record after `ready`; undefined when there is none (the waiter was killed). */
export function parseWaiterRecord(written: string): WaiterRecord | undefined {
  const failed = /^start-failed (fork|exec) (\d+) ([^\n]*)\n$/.exec(written);
  if (failed) {
    const number = Number(failed[2]);
    return {
      kind: 'start-failed',
      step: failed[1] as 'fork' | 'exec',
      errno: ERRNO_NAMES.get(number) ?? `errno ${number}`,
      reason: failed[3] as string,
    };
  }
  const match = /^status (\d+)\n$/.exec(written);
  if (!match) return undefined;
  const raw = Number(match[1]);
  const signal = raw & 0x7f;
  return {
    kind: 'status',
    status:
      signal === 0 ? { exitCode: raw >> 8, signal: null } : { exitCode: null, signal: signalName(signal) },
  };
}

/**
 * The interpreter's wait status from the waiter's record: an interpreter that could not be executed is
 * the conventional "command not found" exit, 127. A failed fork has none (the call fails instead).
 */
export function waitStatusOf(record: WaiterRecord | undefined): ShellWaitStatus | undefined {
  if (record?.kind === 'status') return record.status;
  return record?.step === 'exec' ? { exitCode: 127, signal: null } : undefined;
}
