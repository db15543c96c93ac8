/**
 * The chat routes in process (`app.handle`) over the real database chat repository, on SQLite and
 * PostgreSQL: a turn's items are persisted and survive a restart, tool progress and the data directory
 * reach the tool and the stream, and deleting a chat removes its messages and freshness-ledger rows.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv from 'ajv';
import { createApp } from '../../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../../src/http/app-dependencies.ts';
import { ToolRegistry } from '../../../src/tools/registry.ts';
import { makeTool } from '../../helpers/fake-tools.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../../helpers/scripted-provider.ts';
import { collectSseEvents } from '../../helpers/sse-client.ts';
import { createStubProviderRegistry } from '../../helpers/stub-provider-registry.ts';
import { FIXED_NOW } from '../../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';

describe.each(BACKENDS)('chat routes over the %s chat repository', (backend) => {
  let handle: TestDatabase;
  let workspace: string;
  let deps: AppDependencies;
  let app: ReturnType<typeof createApp>;
  let token: string;
  const seenDataDirectories: (string | undefined)[] = [];
  const provider = new ScriptedProvider(
    [toolCallsResponse([{ id: 'p1', name: 'progress', arguments: { value: 'x' } }]), textResponse('Done.')],
    { id: 'openai' },
  );
  const providers = createStubProviderRegistry({ openai: provider });
  const registry = new ToolRegistry();
  registry.register(
    makeTool({
      name: 'progress',
      execute: async (_args, context) => {
        seenDataDirectories.push(context.dataDirectory);
        context.onProgress({ type: 'step', done: 1, total: 2 });
        return { finished: true };
      },
    }),
  );

  const build = () => {
    deps = createAppDependencies({
      config: handle.config,
      database: handle.database,
      registry,
      now: () => FIXED_NOW,
      providers,
      log: () => {},
    });
    app = createApp(deps);
  };

  const request = async (method: string, path: string, body?: unknown) =>
    app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    workspace = await realpath(await mkdtemp(join(tmpdir(), 'mango-chat-db-routes-')));
    build();
    const carol = await deps.users.create('carol');
    token = carol.token;
    await deps.workspaces.grant(carol.user.id, workspace, false);
  }, 30_000);
  afterAll(async () => {
    await handle.dispose();
    await rm(workspace, { recursive: true, force: true });
  });

  test('a turn is persisted item by item, streams tool progress, and survives a restart', async () => {
    const created = await request('POST', '/api/chats', {
      provider: 'openai',
      model: 'm',
      workingDirectory: workspace,
      systemPrompt: 'Be brief.',
    });
    expect(created.status).toBe(201);
    const chat = (await created.json()) as { id: string; confined: boolean; systemPrompt: string };
    expect(chat).toMatchObject({ confined: true, systemPrompt: 'Be brief.' });

    const events = await collectSseEvents(
      await request('POST', `/api/chats/${chat.id}/turns`, { message: 'Go' }),
    );
    expect(events.find((event) => event.type === 'tool_progress')).toEqual({
      type: 'tool_progress',
      callId: 'p1',
      name: 'progress',
      progress: { type: 'step', done: 1, total: 2 },
    });
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect(seenDataDirectories).toEqual([handle.config.dataDirectory]);

    await handle.reopen();
    build();
    const shown = (await (await request('GET', `/api/chats/${chat.id}`)).json()) as {
      chat: { id: string; systemPrompt: string; workingDirectory: string };
      messages: { seq: number; role: string; item: { type: string } }[];
    };
    expect(shown.chat).toMatchObject({ id: chat.id, systemPrompt: 'Be brief.', workingDirectory: workspace });
    expect(shown.messages.map((message) => [message.seq, message.role, message.item.type])).toEqual([
      [1, 'user', 'user_text'],
      [2, 'assistant', 'tool_call'],
      [3, 'tool', 'tool_result'],
      [4, 'assistant', 'assistant_text'],
    ]);
    const listed = (await (await request('GET', '/api/chats')).json()) as { chats: { id: string }[] };
    expect(listed.chats.map((entry) => entry.id)).toEqual([chat.id]);
  });

  test('DELETE removes the chat, its messages and its freshness-ledger rows', async () => {
    const created = (await (
      await request('POST', '/api/chats', { provider: 'openai', model: 'm' })
    ).json()) as {
      id: string;
      confined: boolean;
      workingDirectory: string;
    };
    expect(created.confined).toBe(true);
    expect(created.workingDirectory).toBe(
      join(handle.config.workspacesDirectory, (await deps.users.findByName('carol'))!.id),
    );
    await deps.ledgerForChat(created.id).put({
      path: join(workspace, 'a.txt'),
      sha256: 'c'.repeat(64),
      size: 1,
      mtimeMs: 1,
      coveredThrough: 1,
      complete: true,
    });
    expect((await request('DELETE', `/api/chats/${created.id}`)).status).toBe(204);
    expect((await request('GET', `/api/chats/${created.id}`)).status).toBe(404);
    expect((await request('DELETE', `/api/chats/${created.id}`)).status).toBe(404);
    expect(await deps.ledgerForChat(created.id).get(join(workspace, 'a.txt'))).toBeUndefined();
  });

  test('responses validate against the schemas of the OpenAPI document', async () => {
    const document = (await (await request('GET', '/api/openapi.json')).json()) as {
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content: Record<string, { schema: object }> }> }>
      >;
    };
    const schemaOf = (path: string, method: string, status: string) =>
      document.paths[path]![method]!.responses[status]!.content['application/json']!.schema;
    const ajv = new Ajv({ strict: false });
    const created = await request('POST', '/api/chats', { provider: 'openai', model: 'm' });
    const chat = (await created.json()) as { id: string };
    expect(ajv.validate(schemaOf('/api/chats', 'post', '201'), chat)).toBe(true);
    expect(
      ajv.validate(schemaOf('/api/chats', 'get', '200'), await (await request('GET', '/api/chats')).json()),
    ).toBe(true);
    const shown = await (await request('GET', `/api/chats/${chat.id}`)).json();
    expect(ajv.validate(schemaOf('/api/chats/{id}', 'get', '200'), shown)).toBe(true);
    const providerList = await (await request('GET', '/api/providers')).json();
    expect(ajv.validate(schemaOf('/api/providers', 'get', '200'), providerList)).toBe(true);
    const refused = await request('POST', '/api/chats', {
      provider: 'openai',
      model: 'm',
      workingDirectory: '/nope',
    });
    expect(refused.status).toBe(422);
    expect(ajv.validate(schemaOf('/api/chats', 'post', '422'), await refused.json())).toBe(true);
    expect(Object.keys(document.paths['/api/chats/{id}/turns']!.post!.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '404',
      '409',
      '413',
      '422',
      '429',
      '503',
    ]);
  });
});
