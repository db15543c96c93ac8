/**
 * Two real `mango serve` processes (with the test tools) sharing one database — a SQLite file or a fresh
 * PostgreSQL database — the model played by one replay server, for the approval process tests. `a` and
 * `b` are the first user's chat API on each process; `close()` resumes a paused process, kills both,
 * and removes the replay server, the database and the temporary directory.
 */
import { chmod, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChatApi, chatApi } from './chat-api-client.ts';
import { type ReplayServer, startReplayServer } from './replay-server.ts';
import { type ServerProcess, startServerProcess } from './server-process.ts';
import type { Backend } from './test-database.ts';
import { createPostgresDatabase } from './test-database.ts';

export type ServerEvent = Record<string, unknown>;

export interface ApprovalServers {
  replay: ReplayServer;
  /** A, then B. */
  servers: [ServerProcess, ServerProcess];
  token: string;
  a: ChatApi;
  b: ChatApi;
  close(): Promise<void>;
}

/**
 * Starts A, then B (A creates the first user and prints its token), with `MANGO_TURN_LEASE_MS=leaseMs`
 * and any further variables of `extraEnv`.
 */
export async function startApprovalServers(
  backend: Backend,
  leaseMs: number,
  extraEnv: Readonly<Record<string, string>> = {},
): Promise<ApprovalServers> {
  const replay = startReplayServer();
  const root = await realpath(await mkdtemp(join(tmpdir(), `mango-approvals-${backend}-`)));
  // The shell sandbox's uid must reach the users' workspaces below it (mkdtemp makes it 0700).
  await chmod(root, 0o755);
  const postgres = backend === 'postgres' ? await createPostgresDatabase() : undefined;
  const env = {
    MANGO_DATA_DIR: join(root, 'data'),
    MANGO_WORKSPACES_DIR: join(root, 'workspaces'),
    MANGO_TURN_LEASE_MS: String(leaseMs),
    OPENAI_COMPATIBLE_BASE_URL: `${replay.baseUrl}/v1`,
    ...(postgres ? { DATABASE_URL: postgres.url } : {}),
    ...extraEnv,
  };
  const started: ServerProcess[] = [];
  const close = async () => {
    for (const server of started) {
      server.child.kill('SIGCONT');
      server.child.kill('SIGKILL');
      await server.exited;
    }
    await replay.close();
    await postgres?.drop();
    await rm(root, { recursive: true, force: true });
  };
  try {
    started.push(await startServerProcess(env));
    started.push(await startServerProcess(env));
  } catch (error) {
    await close();
    throw error;
  }
  const [first, second] = started as [ServerProcess, ServerProcess];
  const token = first.token;
  if (token === undefined) {
    await close();
    throw new Error(`The first server printed no token:\n${first.output()}`);
  }
  return {
    replay,
    servers: [first, second],
    token,
    a: chatApi(first.url, token),
    b: chatApi(second.url, token),
    close,
  };
}

/** Reads `stream` up to its next `tool_approval_requested` (the events before it are pushed to `seen`). */
export async function waitForQuestion(
  stream: AsyncGenerator<ServerEvent>,
  seen: ServerEvent[] = [],
): Promise<ServerEvent> {
  for (;;) {
    const next = await stream.next();
    if (next.done)
      throw new Error(
        `The stream ended before an approval question; its last events: ${JSON.stringify(seen.slice(-4))}`,
      );
    if (next.value.type === 'tool_approval_requested') return next.value;
    seen.push(next.value);
  }
}
