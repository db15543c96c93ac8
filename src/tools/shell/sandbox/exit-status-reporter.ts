/**
 * The interpreter's real wait status, reported from inside the sandbox. bubblewrap's init reaps the
 * command and exits with 128+n when it died of signal n, which is indistinguishable from an `exit 137`;
 * its `--json-status-fd` reports the same number. So the sandbox starts the interpreter under a
 * reporter, a few lines of Perl (perl-base is part of every Debian-family system, in `/usr`), which
 * waits for it and writes `status <raw wait status>` to descriptor 3, then exits 0.
 *
 * Without a descriptor 3 (the start-up probe) the reporter simply becomes the interpreter.
 * The reporter moves descriptor 3 to a close-on-exec descriptor before starting the interpreter, so the
 * command cannot write a fake record. A command that kills the reporter leaves no record; the sandbox's
 * own exit code is used then.
 */
import { constants } from 'node:os';
import type { ShellWaitStatus } from '../run-shell-command.ts';

/** `$^F` is 2: a descriptor Perl opens above it is close-on-exec, and closing `$s` closes 3 itself. */
export const REPORTER_SCRIPT =
  'open(my $s, ">&=", 3) or exec { $ARGV[0] } @ARGV or exit 127; ' +
  ' open(my $r, ">&", $s) or exit 125; close($s); ' +
  'my $c = system { $ARGV[0] } @ARGV; ' +
  'print $r ($c == -1 ? "start-failed $!\\n" : "status $c\\n"); close($r); exit 0;';

/** The argument vector that runs `interpreterArguments` under the reporter. */
export function reporterArguments(perlPath: string, interpreterArguments: readonly string[]): string[] {
  return [perlPath, '-e', REPORTER_SCRIPT, ...interpreterArguments];
}

const SIGNAL_NAMES = new Map<number, string>(
  Object.entries(constants.signals).map(([name, number]) => [number as number, name]),
);

/** The name of signal `number` (`9` → `SIGKILL`), or `SIG<number>` for one this platform has no name for. */
export function signalName(number: number): string {
  return SIGNAL_NAMES.get(number) ?? `SIG${number}`;
}

/** Reads the reporter's record; undefined when there is none (the reporter was killed). */
export function parseReporterStatus(written: string): ShellWaitStatus | undefined {
  const match = /^status (\d+)\n$/.exec(written);
  if (!match) {
    // The interpreter could not be started: the conventional "command not found" exit.
    return written.startsWith('start-failed') ? { exitCode: 127, signal: null } : undefined;
  }
  const raw = Number(match[1]);
  const signal = raw & 0x7f;
  return signal === 0 ? { exitCode: raw >> 8, signal: null } : { exitCode: null, signal: signalName(signal) };
}
