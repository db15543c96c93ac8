/**
 * A chat's system prompt changed through `PATCH /api/chats/:id`, over the real database chat repository
 * on SQLite and PostgreSQL, through the HTTP routes in process: the next turn sends the new prompt, a
 * blank or null one removes it, a turn running at the time keeps the prompt it started with, and a bad
 * value is refused with what was expected before any field of the request is written.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../../src/http/app-dependencies.ts';
import { ToolRegistry } from '../../../src/tools/registry.ts';
import { makeTool } from '../../helpers/fake-tools.ts';
import {
  ScriptedProvider,
  type ScriptStep,
  textResponse,
  toolCallsResponse,
} from '../../helpers/scripted-provider.ts';
import { collectSseEvents } from '../../helpers/sse-client.ts';
import { createStubProviderRegistry } from '../../helpers/stub-provider-registry.ts';
import { FIXED_NOW } from '../../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';

interface ShownChat {
  chat: { title: string; systemPrompt: string | null };
}

describe.each(BACKENDS)("a chat's system prompt edited over the %s chat repository", (backend) => {
  let handle: TestDatabase;
  let workspace: string;
  let deps: AppDependencies;
  let app: ReturnType<typeof createApp>;
  let token: string;
  let clock = FIXED_NOW;
  let steps: ScriptStep[] = [];
  let provider: ScriptedProvider;
  // A tool that holds its turn until the test lets it go, so the turn is running while the prompt changes.
  let toolStarted: () => void = () => {};
  let releaseTool: () => void = () => {};
  const registry = new ToolRegistry();
  registry.register(
    makeTool({
      name: 'hold',
      execute: async () => {
        const released = new Promise<void>((resolve) => {
          releaseTool = resolve;
        });
        toolStarted();
        await released;
        return { held: true };
      },
    }),
  );

  const request = (method: string, path: string, body?: unknown, bearer = token) =>
    app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  const shown = async (chatId: string) =>
    ((await (await request('GET', `/api/chats/${chatId}`)).json()) as ShownChat).chat;
  const turn = async (chatId: string, message: string) => {
    clock += 1_000;
    const response = await request('POST', `/api/chats/${chatId}/turns`, { message });
    expect(response.status).toBe(200);
    return collectSseEvents(response);
  };
  const newChat = async (systemPrompt?: string) =>
    (
      (await (
        await request('POST', '/api/chats', {
          provider: 'openai',
          model: 'm1',
          workingDirectory: workspace,
          ...(systemPrompt === undefined ? {} : { systemPrompt }),
        })
      ).json()) as { id: string }
    ).id;
  const patch = async (chatId: string, body: unknown) => {
    const response = await request('PATCH', `/api/chats/${chatId}`, body);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  /** The system prompt of every model request since the test began, in order. */
  const sentPrompts = () => provider.requests.map((entry) => entry.systemPrompt);

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    workspace = await realpath(await mkdtemp(join(tmpdir(), 'mango-system-prompt-')));
    provider = new ScriptedProvider([], {
      id: 'openai',
      repeat: (modelRequest) => {
        const step = steps.shift();
        if (step === undefined) throw new Error('the test scripted no more responses');
        return (async function* () {
          if (typeof step === 'function') yield* step(modelRequest);
          else yield* step;
        })();
      },
    });
    deps = createAppDependencies({
      config: handle.config,
      database: handle.database,
      registry,
      now: () => clock,
      providers: createStubProviderRegistry({ openai: provider }),
      log: () => {},
    });
    app = createApp(deps);
    const dana = await deps.users.create('dana');
    token = dana.token;
    await deps.workspaces.grant(dana.user.id, workspace, false);
  }, 30_000);
  afterAll(async () => {
    await handle.dispose();
    await rm(workspace, { recursive: true, force: true });
  });
  beforeEach(() => {
    provider.requests.length = 0;
  });

  test('the next turn sends the new prompt (trimmed); blank and null remove it', async () => {
    const chatId = await newChat();
    steps = [textResponse('one')];
    await turn(chatId, 'Hi');
    const [serverPrompt] = sentPrompts();
    expect(serverPrompt).toStartWith('You are a helpful assistant.');

    const set = await patch(chatId, { systemPrompt: '  Answer in French.\n' });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ id: chatId, systemPrompt: 'Answer in French.', model: 'm1' });
    expect((await shown(chatId)).systemPrompt).toBe('Answer in French.');
    steps = [textResponse('deux')];
    await turn(chatId, 'Encore');
    expect(sentPrompts()).toEqual([serverPrompt, `${serverPrompt}\n\nAnswer in French.`]);

    expect((await patch(chatId, { systemPrompt: ' \n ' })).body.systemPrompt).toBeNull();
    expect((await shown(chatId)).systemPrompt).toBeNull();
    await patch(chatId, { systemPrompt: 'Be brief.', title: 'Brief chat' });
    expect(await shown(chatId)).toMatchObject({ systemPrompt: 'Be brief.', title: 'Brief chat' });
    expect((await patch(chatId, { systemPrompt: null })).body.systemPrompt).toBeNull();
    steps = [textResponse('three')];
    await turn(chatId, 'Again');
    expect(sentPrompts()).toEqual([serverPrompt, `${serverPrompt}\n\nAnswer in French.`, serverPrompt]);
  });

  test('a turn running when the prompt changes keeps its own; the next one sends the new', async () => {
    const chatId = await newChat('Old prompt.');
    steps = [toolCallsResponse([{ id: 'h1', name: 'hold', arguments: {} }]), textResponse('held')];
    const started = new Promise<void>((resolve) => {
      toolStarted = resolve;
    });
    const running = turn(chatId, 'Hold on');
    await started;
    const changed = await patch(chatId, { systemPrompt: 'New prompt.' });
    expect(changed).toMatchObject({ status: 200, body: { systemPrompt: 'New prompt.' } });
    releaseTool();
    expect((await running).at(-1)).toEqual({ type: 'done', reason: 'completed' });
    steps = [textResponse('after')];
    await turn(chatId, 'Next');
    const prompts = sentPrompts();
    expect(prompts).toHaveLength(3);
    // Both model calls of the running turn had the old prompt; the next turn has the new one.
    expect(prompts[0]).toEndWith('\n\nOld prompt.');
    expect(prompts[1]).toBe(prompts[0]);
    expect(prompts[2]).toBe(prompts[0]!.replace(/Old prompt\.$/, 'New prompt.'));
  });

  test('a bad prompt is refused with what was expected, and no field of the request is written', async () => {
    const chatId = await newChat('Kept.');
    const tooLong = await patch(chatId, { systemPrompt: `${'x'.repeat(50_001)}  `, title: 'Not written' });
    expect(tooLong).toEqual({
      status: 422,
      body: {
        code: 'invalid_request',
        error: 'systemPrompt must be at most 50000 characters after trimming, got 50001.',
      },
    });
    expect(await patch(chatId, { systemPrompt: 'a\u0000b' })).toEqual({
      status: 422,
      body: {
        code: 'invalid_request',
        error: 'systemPrompt must be valid Unicode text without NUL characters.',
      },
    });
    const wrongType = await patch(chatId, { systemPrompt: 42 });
    expect(wrongType).toEqual({
      status: 400,
      body: {
        code: 'invalid_request',
        error: 'Invalid request body: /systemPrompt Expected string or null, got 42.',
      },
    });
    expect(await shown(chatId)).toMatchObject({ systemPrompt: 'Kept.', title: 'New chat' });
    // At the limit exactly, it is accepted.
    const atLimit = await patch(chatId, { systemPrompt: 'y'.repeat(50_000) });
    expect(atLimit.status).toBe(200);
    expect((await shown(chatId)).systemPrompt).toBe('y'.repeat(50_000));
  });

  test("another user's chat is not found, and the OpenAPI document states the field", async () => {
    const chatId = await newChat('Mine.');
    const eve = await deps.users.create(`eve-${backend}`);
    const response = await request('PATCH', `/api/chats/${chatId}`, { systemPrompt: 'Theirs.' }, eve.token);
    expect(response.status).toBe(404);
    expect((await shown(chatId)).systemPrompt).toBe('Mine.');
    const document = (await (await request('GET', '/api/openapi.json')).json()) as {
      paths: Record<
        string,
        Record<string, { requestBody: { content: Record<string, { schema: { properties: object } }> } }>
      >;
    };
    const body = document.paths['/api/chats/{id}']!.patch!.requestBody.content['application/json']!.schema;
    expect(Object.keys(body.properties).sort()).toEqual([
      'archived',
      'model',
      'pinned',
      'provider',
      'systemPrompt',
      'title',
    ]);
  });
});
