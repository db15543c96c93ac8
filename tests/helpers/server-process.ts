/** Runs `mango serve` (with the test tools) as a real child process and reads what it prints. */
import { join } from 'node:path';
import type { Subprocess } from 'bun';

export interface ServerProcess {
  child: Subprocess<'ignore', 'pipe', 'inherit'>;
  url: string;
  /** The first user's token, when the server printed one. */
  token: string | undefined;
  /** Everything printed to stdout so far. */
  output(): string;
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>;
}

const FIXTURE = join(import.meta.dir, '..', 'server', '__fixtures__', 'serve-with-test-tools.ts');

export async function startServerProcess(
  env: Record<string, string>,
  timeoutMs = 20_000,
): Promise<ServerProcess> {
  const child = Bun.spawn([process.execPath, FIXTURE], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', DATABASE_URL: '', ...env },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'inherit',
  });
  let text = '';
  const exited = child.exited.then(() => child.signalCode ?? child.exitCode ?? -1);
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  })();
  const deadline = Date.now() + timeoutMs;
  while (!/listening on (\S+)/.test(text)) {
    if (Date.now() > deadline || child.exitCode !== null || child.signalCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`mango serve did not start:\n${text}`);
    }
    await Promise.race([pump, Bun.sleep(20)]);
  }
  return {
    child,
    url: /listening on (\S+)/.exec(text)![1]!,
    token: /^\s+(mango_\S+)$/m.exec(text)?.[1],
    output: () => text,
    exited,
  };
}
