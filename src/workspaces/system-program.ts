/**
 * Runs the host's own programs the disk quotas need (`mkfs.ext4`, `e2fsck`, `resize2fs`, `tune2fs`,
 * `mount`, `umount`, `losetup`), found in the system directories only: the server is root when it runs
 * them, so a program earlier on its `PATH` must not stand in for one of them. Each runs with a fixed
 * environment (`LC_ALL=C`, so its messages are the ones quoted in ours) and no input; a non-zero exit
 * the caller did not allow is a `SystemProgramError` quoting what it printed.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MangoError } from '../errors/mango-error.ts';

const SYSTEM_DIRECTORIES = ['/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** The absolute path of `name` in the system directories, or undefined when it is not installed. */
export function findSystemProgram(name: string): string | undefined {
  return SYSTEM_DIRECTORIES.map((directory) => join(directory, name)).find((path) => existsSync(path));
}

/** A program that failed: its name, exit code and the last lines it printed. */
export class SystemProgramError extends MangoError {
  constructor(
    readonly program: string,
    readonly exitCode: number,
    readonly output: string,
  ) {
    super(
      'system_program_failed',
      `${program} failed (exit ${exitCode})${output === '' ? '' : `: ${output}`}`,
    );
    this.name = 'SystemProgramError';
  }
}

export interface SystemProgramOptions {
  /** Descriptors the program gets as 3, 4, … (`/proc/self/fd/3` names the first). */
  descriptors?: readonly number[];
  /** Exit codes that are not failures besides 0 (e2fsck's 1: errors corrected). */
  acceptedExitCodes?: readonly number[];
}

/** What it printed, one line, at most a few hundred characters: enough to say why, short enough for a message. */
function summary(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const joined = lines.slice(-4).join(' ');
  return joined.length > 400 ? `${joined.slice(0, 400)}…` : joined;
}

/**
 * Runs `name` with `args`; resolves with its standard output.
 * @throws SystemProgramError when it is missing or exits with a code not accepted.
 */
export async function runSystemProgram(
  name: string,
  args: readonly string[],
  options: SystemProgramOptions = {},
): Promise<{ stdout: string; exitCode: number }> {
  const path = findSystemProgram(name);
  if (path === undefined)
    throw new SystemProgramError(name, 127, `${name} is not installed in ${SYSTEM_DIRECTORIES.join(', ')}`);
  const child = Bun.spawn([path, ...args], {
    stdio: ['ignore', 'pipe', 'pipe', ...(options.descriptors ?? [])],
    env: { PATH: SYSTEM_DIRECTORIES.join(':'), LC_ALL: 'C' },
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  if (exitCode !== 0 && !(options.acceptedExitCodes ?? []).includes(exitCode)) {
    throw new SystemProgramError(name, exitCode, summary(`${stdout}\n${stderr}`));
  }
  return { stdout, exitCode };
}
