/**
 * Killing everything a command started: the whole group gets SIGKILL, so nothing it started is left
 * running after the call.
 *
 * On POSIX the shell is spawned with Bun's `detached: true`, which calls `setsid()` in the child: the
 * shell leads a new session and a new process group whose id is its own pid (verified through
 * `/proc/<pid>/stat` in tests/tools/shell/run-shell-command.test.ts). Every process it starts inherits
 * that group unless it deliberately leaves it (`setsid`, `setpgid`), so `kill(-pgid, SIGKILL)` reaches
 * the shell, its pipelines and its `&` children at once. A process that leaves the group on purpose is
 * out of reach of a process-group kill; containing that needs a cgroup (Bun.spawn's `cgroup` option)
 * per call, which the server does not require today. runShellCommand still stops waiting for such a
 * process's pipes (it abandons the streams), so the call returns.
 *
 * The group id stays reserved while any member lives, even after the leader exited and was reaped, so
 * signalling `-pgid` after the shell's exit reaches its leftover children and nobody else.
 *
 * On Windows there are no process groups to signal; `taskkill /T /F` ends the process tree instead.
 */

/** Sends SIGKILL to every process in the group `processGroupId`. Never throws; an empty group is fine. */
export function killProcessGroup(processGroupId: number): void {
  if (process.platform === 'win32') {
    killWindowsProcessTree(processGroupId);
    return;
  }
  try {
    process.kill(-processGroupId, 'SIGKILL');
  } catch {
    // ESRCH: nobody left in the group. EPERM: a member changed identity (a setuid program); the rest
    // of the group was still signalled. Nothing else can fail for a valid signal, and this runs inside
    // timer and abort callbacks, where a throw would take the server down: never throw.
  }
}

function killWindowsProcessTree(processId: number): void {
  try {
    Bun.spawn(['taskkill', '/PID', String(processId), '/T', '/F'], {
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: 'ignore',
    });
  } catch {
    // taskkill missing: fall back to the single process.
    try {
      process.kill(processId, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
