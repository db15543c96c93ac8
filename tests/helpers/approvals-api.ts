/**
 * An in-process chat API for approval tests (`app.handle`) over a real test database: the real bash tool
 * (enabled, in its sandbox) and `risky`, a tool without traits whose every call asks; a scripted provider
 * the test swaps per turn (`slot.provider`); the approval timeout's timers fired by hand; users alice
 * (who owns a temporary working directory) and bob.
 */
import { expect } from 'bun:test';
import { chmod, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../src/http/app-dependencies.ts';
import type { ModelProvider } from '../../src/providers/model-provider.ts';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { defaultToolRegistry, ToolRegistry } from '../../src/tools/registry.ts';
import { makeTool } from './fake-tools.ts';
import { manualTimers } from './manual-timers.ts';
import { ScriptedProvider } from './scripted-provider.ts';
import { readSseEvents } from './sse-client.ts';
import { createStubProviderRegistry } from './stub-provider-registry.ts';
import { FIXED_NOW } from './test-app.ts';
import { type Backend, createTestDatabase } from './test-database.ts';
import { installTestShellSandbox } from './test-shell-sandbox.ts';

export type ApiEvent = Record<string, unknown>;

export const isApprovalRequest = (event: ApiEvent) => event.type === 'tool_approval_requested';

export const bashCall = (id: string, command: string) => ({ id, name: 'bash', arguments: { command } });

export async function createApprovalsApi(backend: Backend) {
  const handle = await createTestDatabase(backend);
  const root = await realpath(await mkdtemp(join(tmpdir(), 'mango-approvals-')));
  // The shell sandbox's uid must be able to reach the working directory (mkdtemp makes it 0700).
  await chmod(root, 0o755);
  const timers = manualTimers();
  const slot = { provider: new ScriptedProvider([]) };
  const provider: ModelProvider = { id: 'openai', stream: (request) => slot.provider.stream(request) };
  const registry = new ToolRegistry();
  registry.register(defaultToolRegistry.get('bash')!);
  registry.register(makeTool({ name: 'risky', traits: undefined }));
  const sandbox = installTestShellSandbox(handle.database);
  const deps: AppDependencies = createAppDependencies({
    config: handle.config,
    database: handle.database,
    registry,
    now: () => FIXED_NOW,
    providers: createStubProviderRegistry({ openai: provider }),
    log: () => {},
    approvalTimers: timers.timers,
  });
  const app = createApp(deps);
  const created = await deps.users.create('alice');
  const alice = created.token;
  const bob = (await deps.users.create('bob')).token;
  await deps.workspaces.grant(created.user.id, root, false);

  const call = (method: string, path: string, token: string, body?: unknown) =>
    app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  const json = async (method: string, path: string, body?: unknown, token = alice) => {
    const response = await call(method, path, token, body);
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  };
  expect((await json('PUT', '/api/settings/tools/bash', { enabled: true })).status).toBe(200);

  return {
    slot,
    timers,
    alice,
    bob,
    call,
    json,
    /** A chat of alice's in the working directory. */
    async newChat(): Promise<string> {
      const chat = await json('POST', '/api/chats', {
        provider: 'openai',
        model: 'm',
        workingDirectory: root,
      });
      expect(chat.status).toBe(201);
      return chat.body.id as string;
    },
    /** Starts a turn and reads its stream up to the first event `until` accepts. */
    async startUntil(chatId: string, message: string, until: (event: ApiEvent) => boolean) {
      const response = await call('POST', `/api/chats/${chatId}/turns`, alice, { message });
      expect(response.status).toBe(200);
      const stream = readSseEvents(response);
      const seen: ApiEvent[] = [];
      for (;;) {
        const next = await stream.next();
        if (next.done) throw new Error(`The stream ended first: ${JSON.stringify(seen)}`);
        seen.push(next.value);
        if (until(next.value)) break;
      }
      const rest = async () => {
        for await (const event of stream) seen.push(event);
        return seen;
      };
      return { seen, rest };
    },
    /** alice's effective bash settings. */
    async bashSettings(): Promise<ApiEvent> {
      const tools = (await json('GET', '/api/settings/tools')).body.tools as {
        name: string;
        parameters: ApiEvent;
      }[];
      return tools.find((tool) => tool.name === 'bash')!.parameters;
    },
    async dispose() {
      sandbox.restore();
      await handle.dispose();
      await rm(root, { recursive: true, force: true });
    },
  };
}

export type ApprovalsApi = Awaited<ReturnType<typeof createApprovalsApi>>;
