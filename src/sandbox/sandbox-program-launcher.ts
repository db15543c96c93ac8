/**
 * PID 1 of a long-running program's sandbox (an MCP server speaking on stdin and stdout): a few lines of
 * Perl, like the command waiter (sandbox-waiter.ts), that hold the program back until the server says
 * start, then run it and stay as the namespace's reaper.
 *
 * Guarantees:
 * - Nothing of the program runs before the server's start line (`go`) arrives on stdin, so the server
 *   can first join the sandbox to its user's process cgroup (sandbox-admission.ts) and every process of
 *   the program is counted. Any other first line, or stdin closing first, ends the sandbox with exit 125.
 * - The start line is read a byte at a time, so not one byte after it is taken: the program reads the
 *   rest of stdin (the MCP messages) exactly as the server wrote it, and writes stdout and stderr itself.
 * - The program gets the sandbox's environment and arguments unchanged (they are the operator's
 *   configuration, known when the sandbox is built).
 * - A program that cannot be run (the kernel refused it: a missing interpreter, a missing loader) is
 *   exit 127 with `cannot run PROGRAM: REASON` on stderr, so the server can say why it never answered.
 *   One whose process could not be made (`fork` fails at once, as when its user's processes are at
 *   their limit) is exit 126 with `cannot start PROGRAM: fork: REASON`.
 * - As PID 1 the launcher reaps orphans (an `npx` launcher's children), and when the program has exited it
 *   kills everything else in the namespace (`kill -KILL -1` from PID 1, which it checks it is) and exits
 *   with the program's status, or 128 + the signal that ended it.
 */

/** What the server writes on the sandbox's stdin to let the program start. */
export const PROGRAM_LAUNCHER_START = 'go\n';

export const PROGRAM_LAUNCHER_SCRIPT =
  'my $l = ""; while (1) { my $n = sysread(STDIN, my $c, 1); exit 125 unless $n; last if $c eq "\\n"; ' +
  '$l .= $c; exit 125 if length $l > 8 } exit 125 unless $l eq "go"; ' +
  'my $p = fork; unless (defined $p) { print STDERR "cannot start $ARGV[0]: fork: $!\\n"; exit 126 } ' +
  'if ($p == 0) { exec { $ARGV[0] } @ARGV; print STDERR "cannot run $ARGV[0]: $!\\n"; exit 127 } ' +
  'my $s = 0; while ((my $w = wait) != -1) { if ($w == $p) { $s = $?; last } } ' +
  'kill("KILL", -1) if $$ == 1; exit($s & 127 ? 128 + ($s & 127) : $s >> 8);';

/** The argument vector that starts the launcher in front of `program` (its absolute path, then its arguments). */
export function programLauncherArguments(perlPath: string, program: readonly string[]): string[] {
  return [perlPath, '-e', PROGRAM_LAUNCHER_SCRIPT, '--', ...program];
}
