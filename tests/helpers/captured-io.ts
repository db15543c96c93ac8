/** Test helper: the `CliIo` of one command run, keeping what it wrote to stdout and stderr. */
import type { CliIo } from '../../src/cli/usage-error.ts';

export function capturedIo(cwd: string, env: Record<string, string>) {
  const written = { stdout: '', stderr: '' };
  const io: CliIo = {
    stdout: (text) => {
      written.stdout += text;
    },
    stderr: (text) => {
      written.stderr += text;
    },
    cwd,
    env,
  };
  return { io, written };
}
