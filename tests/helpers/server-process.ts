/** Runs `mango serve` (with the test tools) as a real child process and reads what it prints. */
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { waitUntil } from './wait-until.ts';

export interface ServerProcess {
  child: Subprocess<'ignore', 'pipe', 'pipe'>;
  url: string;
  /** The first user's token, when the server printed one. */
  token: string | undefined;
  /** Everything printed to stdout so far. */
  output(): string;
  /** Everything printed to stderr so far (also passed on to this process's stderr). */
  errors(): string;
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
    stderr: 'pipe',
  });
  let text = '';
  let errorText = '';
  const exited = child.exited.then(() => child.signalCode ?? child.exitCode ?? -1);
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
    }
  })();
  // Read so that a test can wait for what the server reports there, and still shown as before.
  void (async () => {
    const errorReader = child.stderr.getReader();
    const errorDecoder = new TextDecoder();
    for (;;) {
      const { value, done } = await errorReader.read();
      if (done) return;
      process.stderr.write(value);
      errorText += errorDecoder.decode(value, { stream: true });
    }
  })();
  const exitedEarly = () => child.exitCode !== null || child.signalCode !== null;
  await waitUntil(() => /listening on (\S+)/.test(text) || exitedEarly(), timeoutMs);
  if (!/listening on (\S+)/.test(text)) {
    child.kill('SIGKILL');
    throw new Error(`mango serve did not start:\n${text}`);
  }
  return {
    child,
    url: /listening on (\S+)/.exec(text)![1]!,
    token: /^\s+(mango_\S+)$/m.exec(text)?.[1],
    output: () => text,
    errors: () => errorText,
    exited,
  };
}
