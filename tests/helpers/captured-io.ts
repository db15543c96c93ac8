/** Test helper: the `CliIo` of one command run, keeping what it wrote to stdout and stderr. */
import { runCli } from '../../src/cli/main.ts';
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

/** Runs the `mango` command line with `argv` in `cwd` and `env`: its exit code and what it wrote. */
export async function runCliCaptured(
  argv: string[],
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const defined = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const { io, written } = capturedIo(cwd, defined);
  const code = await runCli(argv, io);
  return { code, ...written };
}
