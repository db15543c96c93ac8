/**
 * A whole server for the tenant isolation tests: `startServer` on loopback over SQLite or PostgreSQL,
 * with the host's real shell sandbox (bubblewrap, and a uid per user when the test runs as root), and
 * a model (tool-calling-model-server.ts) whose one call in each turn is the user's message itself,
 * spelled as JSON. Its tenants act only through the public HTTP API: bash enabled without approval,
 * every call a turn of a new chat, their personal workspace as `GET /api/workspaces` gives it.
 *
 * Everything lives in one base directory under `/var/tmp` (outside `/tmp`, like a deployment: a
 * sandbox's `/tmp` is private), mode 0755, so that what keeps a host account out of the workspaces is
 * the workspaces directory the server made itself, not the test's own directory.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MAX_REQUEST_BODY_BYTES } from '../../src/config.ts';
import type { ToolResultEvent } from '../../src/contracts/turn-event.ts';
import { type RunningServer, startServer } from '../../src/server/start-server.ts';
import type { ShellCommandResult } from '../../src/tools/shell/run-shell-command.ts';
import { releaseMountsUnder } from './release-mounts.ts';
import { collectSseEvents } from './sse-client.ts';
import { type Backend, createPostgresDatabase } from './test-database.ts';
import { callSpelledOut, startToolCallingModelServer } from './tool-calling-model-server.ts';

/** How a shell call ended, from its result. */
export type ShellOutcome = Pick<ShellCommandResult, 'exitCode' | 'signal' | 'stdout' | 'stderr'>;

/** A turn that is still running: its chat, and its events once it ends. */
export interface RunningTurn {
  chatId: string;
  events: Promise<Record<string, unknown>[]>;
}

export interface Tenant {
  name: string;
  id: string;
  token: string;
  /** The personal workspace's real path and opaque id, from `GET /api/workspaces`. */
  workspace: string;
  workspaceId: string;
  /** Sends a request to the API as this tenant (a string body as is, any other as JSON). */
  api(method: string, path: string, body?: unknown): Promise<Response>;
  /** One turn of a new chat whose model calls `name` with `args`; its tool result. */
  call(tool: string, args: Record<string, unknown>): Promise<ToolResultEvent>;
  /** One bash call through a turn; its outcome (throws when the call itself failed). */
  bash(command: string): Promise<ShellOutcome>;
  /** Starts a turn whose bash call is `command`, without waiting for it. */
  startBash(command: string): Promise<RunningTurn>;
}

export interface TenantServer {
  server: RunningServer;
  base: string;
  workspacesDirectory: string;
  dataDirectory: string;
  /** Creates the user (as `mango user add` does) and enables bash for them through the API. */
  addTenant(name: string): Promise<Tenant>;
  stop(): Promise<void>;
}

export interface TenantServerOptions {
  /** The operator's MCP servers file's `mcpServers` (written to the base directory). */
  mcpServers?: Record<string, unknown>;
  /** Further variables of the server's environment (`MANGO_SANDBOX_USER_MEMORY`…). */
  env?: Readonly<Record<string, string>>;
  /** Each tenant's disk quota (`MANGO_USER_DISK_BYTES`): their workspace is an image of this size. */
  userDiskBytes?: number;
}

export async function startTenantServer(
  backend: Backend,
  options: TenantServerOptions = {},
): Promise<TenantServer> {
  const base = mkdtempSync('/var/tmp/mango-tenants-');
  chmodSync(base, 0o755);
  const model = startToolCallingModelServer({ callFor: callSpelledOut });
  let postgres: Awaited<ReturnType<typeof createPostgresDatabase>> | undefined;
  const cleanUp = async () => {
    await model.close();
    await postgres?.drop();
    // The tenants' disk images, when they have quotas: exactly the mounts under the base.
    await releaseMountsUnder(base);
    rmSync(base, { recursive: true, force: true });
  };
  const env: Record<string, string> = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    OPENAI_COMPATIBLE_BASE_URL: `${model.baseUrl}/v1`,
    ...options.env,
  };
  if (options.mcpServers !== undefined) {
    env.MANGO_MCP_SERVERS = join(base, 'mcp-servers.json');
    writeFileSync(env.MANGO_MCP_SERVERS, JSON.stringify({ mcpServers: options.mcpServers }));
  }
  // Shown when a tenant cannot be set up: the server says there why the sandbox cannot run.
  const printed: string[] = [];
  const config = {
    host: '127.0.0.1',
    port: 0,
    dataDirectory: join(base, 'data'),
    workspacesDirectory: join(base, 'workspaces'),
    databaseUrl: undefined as string | undefined,
    shutdownTimeoutMs: 5_000,
    maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
    ...(options.userDiskBytes === undefined ? {} : { userDiskBytes: options.userDiskBytes }),
  };
  let server: RunningServer;
  try {
    if (backend === 'postgres') {
      postgres = await createPostgresDatabase();
      config.databaseUrl = postgres.url;
    }
    server = await startServer(config, { print: (line) => printed.push(line), env });
  } catch (error) {
    await cleanUp();
    throw error;
  }

  const addTenant = async (name: string): Promise<Tenant> => {
    const { token, user } = await server.deps.users.create(name);
    const api = (method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined || typeof body === 'string' ? body : JSON.stringify(body),
      });
    // Who reaches what is the subject here; approvals are tested on their own.
    const enabled = await api('PUT', '/api/settings/tools/bash', {
      enabled: true,
      parameters: { approval: 'never' },
    });
    if (enabled.status !== 200) {
      throw new Error(
        `bash cannot be enabled (${enabled.status} ${await enabled.text()}):\n${printed.join('\n')}`,
      );
    }
    const listed = (await (await api('GET', '/api/workspaces')).json()) as {
      workspaces: { id: string; path: string; kind: string }[];
    };
    const personal = listed.workspaces.find((workspace) => workspace.kind === 'personal');
    if (personal === undefined)
      throw new Error(`${name} has no personal workspace: ${JSON.stringify(listed)}`);
    const startTurn = async (tool: string, args: Record<string, unknown>): Promise<RunningTurn> => {
      const created = await api('POST', '/api/chats', { provider: 'openai-compatible', model: 'm' });
      if (created.status !== 201) throw new Error(`no chat: ${created.status} ${await created.text()}`);
      const chatId = ((await created.json()) as { id: string }).id;
      const turn = await api('POST', `/api/chats/${chatId}/turns`, {
        message: JSON.stringify({ name: tool, arguments: args }),
      });
      if (turn.status !== 200) throw new Error(`no turn: ${turn.status} ${await turn.text()}`);
      return { chatId, events: collectSseEvents(turn) };
    };
    const call = async (tool: string, args: Record<string, unknown>): Promise<ToolResultEvent> => {
      const events = await (await startTurn(tool, args)).events;
      const result = events.find((event) => event.type === 'tool_result');
      if (result === undefined) throw new Error(`the turn made no call: ${JSON.stringify(events)}`);
      return result as unknown as ToolResultEvent;
    };
    return {
      name,
      id: user.id,
      token,
      workspace: personal.path,
      workspaceId: personal.id,
      api,
      call,
      bash: async (command) => {
        const result = await call('bash', { command });
        if (!result.ok) throw new Error(`bash ${command} failed: ${JSON.stringify(result.error)}`);
        const { exitCode, signal, stdout, stderr } = result.result as ShellCommandResult;
        return { exitCode, signal, stdout, stderr };
      },
      startBash: (command) => startTurn('bash', { command }),
    };
  };

  return {
    server,
    base,
    workspacesDirectory: config.workspacesDirectory,
    dataDirectory: config.dataDirectory,
    addTenant,
    stop: async () => {
      // It also gives back the shell sandbox it installed and ends its sandboxes built ahead.
      await server.stop();
      await cleanUp();
    },
  };
}

/** How a host process ended: its exit code and exact output. */
export interface HostOutcome {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `argv` on the host as `uid` and `gid` with exactly `groups` as supplementary groups (none:
 * `--clear-groups`), through `setpriv`: what a local account, or a process of a tenant's uid outside
 * any sandbox, would get. `setpriv` keeps root's capabilities until its own `execve` (it sets
 * keep-caps to apply its capability options after the uid change), so the program it starts would be
 * looked up with root's right to pass any directory: `env` is started instead and starts `argv` with
 * none, as a local account would (its refusals read `/usr/bin/env: '<program>': <reason>`).
 */
export function runAsHostAccount(
  ids: { uid: number; gid: number; groups?: readonly number[] },
  argv: readonly string[],
): HostOutcome {
  const groups = ids.groups ?? [];
  const spawned = Bun.spawnSync(
    [
      'setpriv',
      `--reuid=${ids.uid}`,
      `--regid=${ids.gid}`,
      groups.length > 0 ? `--groups=${groups.join(',')}` : '--clear-groups',
      '--',
      '/usr/bin/env',
      ...argv,
    ],
    { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { PATH: '/usr/bin:/bin', LANG: 'C' } },
  );
  return {
    exitCode: spawned.exitCode ?? -1,
    stdout: spawned.stdout.toString(),
    stderr: spawned.stderr.toString(),
  };
}

/** The local account `nobody`. */
export const NOBODY = { uid: 65534, gid: 65534 } as const;
