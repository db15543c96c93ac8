/**
 * Finding and keeping chats through the chat API in process, on SQLite and PostgreSQL: full-text search
 * finds a word only in a message body of the caller's chat and never in another user's, reads titles
 * and assistant text but not tool arguments, pages with limit and offset and forgets a deleted chat;
 * the list follows activity (a new turn moves its chat up, chats made in the same millisecond keep
 * their order), pins come first, archived chats are listed apart and a new message brings one back; the
 * export carries every message, tool call and result and the usage, as JSON and as Markdown; every bad
 * query value is a 422 that names it, and another user's chat is a 404.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { ProviderEvent } from '../../../src/contracts/provider-event.ts';
import { createApp } from '../../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../../src/http/app-dependencies.ts';
import type { ModelProvider } from '../../../src/providers/model-provider.ts';
import { ToolRegistry } from '../../../src/tools/registry.ts';
import { makeTool } from '../../helpers/fake-tools.ts';
import { ScriptedProvider, toolCallsResponse } from '../../helpers/scripted-provider.ts';
import { collectSseEvents } from '../../helpers/sse-client.ts';
import { createStubProviderRegistry } from '../../helpers/stub-provider-registry.ts';
import { FIXED_NOW } from '../../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';

interface ChatBody {
  id: string;
  title: string;
  lastActivityAt: string;
  pinnedAt: string | null;
  archivedAt: string | null;
}

interface SearchBody {
  results: {
    chat: ChatBody;
    matches: number;
    title: { text: string; match: boolean }[];
    message: { seq: number; role: string; snippet: { text: string; match: boolean }[] } | null;
  }[];
  nextOffset: number | null;
}

const iso = (offsetMs: number) => new Date(FIXED_NOW + offsetMs).toISOString();

function answer(text: string, usage = { inputTokens: 10, outputTokens: 2 }): ProviderEvent[] {
  return [
    { type: 'text_delta', delta: text },
    { type: 'finish', reason: 'stop', usage },
  ];
}

describe.each(BACKENDS)('finding and keeping chats on %s', (backend) => {
  let handle: TestDatabase;
  let deps: AppDependencies;
  let app: ReturnType<typeof createApp>;
  const tokens: Record<'alice' | 'bob', string> = { alice: '', bob: '' };
  let clock = FIXED_NOW;
  const slot = { provider: new ScriptedProvider([]) };
  const provider: ModelProvider = { id: 'openai', stream: (request) => slot.provider.stream(request) };
  const registry = new ToolRegistry();
  registry.register(makeTool({ name: 'lookup', execute: async () => ({ found: 'parsnip-in-result' }) }));

  const request = async (who: 'alice' | 'bob', method: string, path: string, body?: unknown) =>
    app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${tokens[who]}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  const json = async <T>(who: 'alice' | 'bob', method: string, path: string, body?: unknown) => {
    const response = await request(who, method, path, body);
    return { status: response.status, body: (await response.json()) as T };
  };
  const newChat = async (who: 'alice' | 'bob', title: string) =>
    (await json<ChatBody>(who, 'POST', '/api/chats', { provider: 'openai', model: 'm', title })).body.id;
  const turn = async (who: 'alice' | 'bob', chatId: string, message: string, ...steps: ProviderEvent[][]) => {
    slot.provider = new ScriptedProvider(steps);
    const events = await collectSseEvents(
      await request(who, 'POST', `/api/chats/${chatId}/turns`, { message }),
    );
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'completed' });
  };
  const listIds = async (query = '') =>
    (await json<{ chats: ChatBody[] }>('alice', 'GET', `/api/chats${query}`)).body.chats.map(
      (chat) => chat.id,
    );
  const search = (who: 'alice' | 'bob', query: string) =>
    json<SearchBody>(who, 'GET', `/api/chats/search?${query}`);

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    deps = createAppDependencies({
      config: handle.config,
      database: handle.database,
      registry,
      now: () => clock,
      providers: createStubProviderRegistry({ openai: provider }),
      log: () => {},
    });
    app = createApp(deps);
    tokens.alice = (await deps.users.create('alice')).token;
    tokens.bob = (await deps.users.create('bob')).token;
  }, 30_000);
  afterAll(() => handle.dispose());

  test("search finds a word of a message body in the caller's chat only, with a highlighted excerpt", async () => {
    const mine = await newChat('alice', 'Groceries');
    const theirs = await newChat('bob', 'Groceries');
    await turn('alice', mine, 'Please remember the zucchini for Sunday.', answer('Noted: kohlrabi too.'));
    await turn('bob', theirs, 'zucchini zucchini everywhere', answer('Quite.'));

    const found = await search('alice', 'q=ZUCCH');
    expect(found.status).toBe(200);
    expect(found.body.nextOffset).toBeNull();
    expect(found.body.results.map((result) => [result.chat.id, result.matches])).toEqual([[mine, 1]]);
    expect(found.body.results[0]!.title).toEqual([{ text: 'Groceries', match: false }]);
    expect(found.body.results[0]!.message).toMatchObject({
      seq: 1,
      role: 'user',
      snippet: [
        { text: 'Please remember the ', match: false },
        { text: 'zucchini', match: true },
        { text: ' for Sunday.', match: false },
      ],
    });
    const bobs = await search('bob', 'q=zucchini');
    expect(bobs.body.results.map((result) => result.chat.id)).toEqual([theirs]);
    // Assistant text is searched; both words must begin words of one entry.
    const assistant = await search('alice', 'q=kohl%20noted');
    expect(assistant.body.results[0]!.message).toMatchObject({
      seq: 2,
      role: 'assistant',
      snippet: [
        { text: 'Noted', match: true },
        { text: ': ', match: false },
        { text: 'kohlrabi', match: true },
        { text: ' too.', match: false },
      ],
    });
    expect((await search('alice', 'q=kohlrabi%20zucchini')).body.results).toEqual([]);
    // A word inside a word is no match: terms are prefixes of words.
    expect((await search('alice', 'q=ucchini')).body.results).toEqual([]);
  });

  test('titles are searched, tool arguments and results are not, a deleted chat is gone from the index', async () => {
    const chat = await newChat('alice', 'Trip to Lisbon');
    await turn(
      'alice',
      chat,
      'Plan it.',
      toolCallsResponse([{ id: 'c1', name: 'lookup', arguments: { value: 'rutabaga' } }]),
      answer('Planned.'),
    );
    const byTitle = await search('alice', 'q=lisb');
    expect(byTitle.body.results).toEqual([
      {
        chat: expect.objectContaining({ id: chat, title: 'Trip to Lisbon' }),
        matches: 1,
        title: [
          { text: 'Trip to ', match: false },
          { text: 'Lisbon', match: true },
        ],
        message: null,
      },
    ]);
    expect((await search('alice', 'q=rutabaga')).body.results).toEqual([]);
    expect((await search('alice', 'q=parsnip')).body.results).toEqual([]);
    // A rename re-indexes the title.
    await json('alice', 'PATCH', `/api/chats/${chat}`, { title: 'Trip to Porto' });
    expect((await search('alice', 'q=lisbon')).body.results).toEqual([]);
    expect((await search('alice', 'q=porto')).body.results.map((result) => result.chat.id)).toEqual([chat]);
    expect((await request('alice', 'DELETE', `/api/chats/${chat}`)).status).toBe(204);
    expect((await search('alice', 'q=porto')).body.results).toEqual([]);
    expect((await search('alice', 'q=planned')).body.results).toEqual([]);
  });

  test('pages with limit and offset, newest activity first', async () => {
    const ids: string[] = [];
    for (const name of ['one', 'two', 'three']) ids.push(await newChat('alice', `Pagination ${name}`));
    const first = await search('alice', 'q=pagination&limit=2');
    expect(first.body.results.map((result) => result.chat.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.nextOffset).toBe(2);
    const second = await search('alice', 'q=pagination&limit=2&offset=2');
    expect(second.body.results.map((result) => result.chat.id)).toEqual([ids[0]]);
    expect(second.body.nextOffset).toBeNull();
    for (const id of ids) await request('alice', 'DELETE', `/api/chats/${id}`);
  });

  test('the list follows activity: same-millisecond chats keep their order, a new turn moves its chat up', async () => {
    for (const id of await listIds()) await request('alice', 'DELETE', `/api/chats/${id}`);
    clock = FIXED_NOW + 60_000;
    const a = await newChat('alice', 'A');
    const b = await newChat('alice', 'B');
    const c = await newChat('alice', 'C');
    expect(await listIds()).toEqual([c, b, a]);
    clock = FIXED_NOW + 120_000;
    await turn('alice', a, 'Again.', answer('Yes.'));
    expect(await listIds()).toEqual([a, c, b]);
    const listed = (await json<{ chats: ChatBody[] }>('alice', 'GET', '/api/chats')).body.chats;
    expect(listed.map((chat) => [chat.title, chat.lastActivityAt])).toEqual([
      ['A', iso(120_000)],
      ['C', iso(60_000)],
      ['B', iso(60_000)],
    ]);
  });

  test('pinned chats come first; archived ones are listed apart, unpinned, and a new message brings one back', async () => {
    const [a, c, b] = await listIds();
    clock = FIXED_NOW + 180_000;
    const pinned = await json<ChatBody>('alice', 'PATCH', `/api/chats/${b}`, { pinned: true });
    expect(pinned).toMatchObject({ status: 200, body: { id: b, pinnedAt: iso(180_000), archivedAt: null } });
    expect(await listIds()).toEqual([b, a, c]);
    // Pinning again keeps the first stamp.
    clock = FIXED_NOW + 200_000;
    expect((await json<ChatBody>('alice', 'PATCH', `/api/chats/${b}`, { pinned: true })).body.pinnedAt).toBe(
      iso(180_000),
    );

    const archived = await json<ChatBody>('alice', 'PATCH', `/api/chats/${b}`, { archived: true });
    expect(archived.body).toMatchObject({ pinnedAt: null, archivedAt: iso(200_000) });
    expect(await listIds()).toEqual([a, c]);
    expect(await listIds('?archived=true')).toEqual([b]);
    expect(await listIds('?archived=false')).toEqual([a, c]);
    // Archived chats are still found.
    expect((await search('alice', 'q=B')).body.results.map((result) => result.chat.id)).toEqual([b]);

    clock = FIXED_NOW + 240_000;
    await turn('alice', b!, 'Back to this one.', answer('Welcome back.'));
    expect(await listIds()).toEqual([b, a, c]);
    expect(await listIds('?archived=true')).toEqual([]);
    const unarchived = await json<ChatBody>('alice', 'PATCH', `/api/chats/${a}`, {
      archived: false,
      title: ' A2 ',
    });
    expect(unarchived.body).toMatchObject({ title: 'A2', archivedAt: null, pinnedAt: null });
  });

  test('the export carries every message, tool call and result and the usage, as JSON and as Markdown', async () => {
    clock = FIXED_NOW;
    const chat = await newChat('alice', 'Export me');
    await turn(
      'alice',
      chat,
      'Look it up.',
      [
        ...toolCallsResponse([{ id: 'c9', name: 'lookup', arguments: { value: 'x`y' } }]).slice(0, -1),
        { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 100, outputTokens: 20 } },
      ],
      answer('Found ```parsnip```.', { inputTokens: 150, outputTokens: 30 }),
    );
    const response = await request('alice', 'GET', `/api/chats/${chat}/export?format=json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="Export me.json"; filename*=UTF-8''Export%20me.json`,
    );
    const exported = (await response.json()) as Record<string, unknown> & {
      messages: { seq: number; role: string; item: unknown }[];
      turns: { state: string; usage: unknown }[];
    };
    expect(exported).toMatchObject({
      format: 'mango-chat',
      version: 1,
      exportedAt: iso(0),
      chat: { id: chat, title: 'Export me', model: 'm', provider: 'openai' },
      usage: { modelCalls: 2, inputTokens: 250, outputTokens: 50 },
    });
    expect(exported.messages.map((message) => [message.seq, message.role, message.item])).toEqual([
      [1, 'user', { type: 'user_text', text: 'Look it up.' }],
      [2, 'assistant', { type: 'tool_call', callId: 'c9', name: 'lookup', arguments: '{"value":"x`y"}' }],
      [
        3,
        'tool',
        {
          type: 'tool_result',
          callId: 'c9',
          name: 'lookup',
          ok: true,
          output: '{"found":"parsnip-in-result"}',
        },
      ],
      [4, 'assistant', { type: 'assistant_text', text: 'Found ```parsnip```.' }],
    ]);
    expect(exported.turns).toMatchObject([
      { state: 'completed', usage: { modelCalls: 2, inputTokens: 250, outputTokens: 50 } },
    ]);

    const markdown = await request('alice', 'GET', `/api/chats/${chat}/export`);
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(markdown.headers.get('content-disposition')).toBe(
      `attachment; filename="Export me.md"; filename*=UTF-8''Export%20me.md`,
    );
    const at = iso(0);
    expect(await markdown.text()).toBe(
      [
        '# Export me',
        '',
        '- Model: m (openai)',
        `- Created: ${at}`,
        `- Last activity: ${at}`,
        '- Usage: 2 model calls · 250 tokens in · 50 out',
        `- Exported: ${at}`,
        '',
        `## User · ${at}`,
        '',
        'Look it up.',
        '',
        '### Tool call `lookup` · c9',
        '',
        '```json\n{\n  "value": "x`y"\n}\n```',
        '',
        '### Tool result `lookup` · ok',
        '',
        '```json\n{\n  "found": "parsnip-in-result"\n}\n```',
        '',
        `## Assistant · ${at}`,
        '',
        'Found ```parsnip```.',
        '',
        '> Turn completed · 2 model calls · 250 tokens in · 50 out · 0.0 s',
        '',
      ].join('\n'),
    );
  });

  test("another user's chat is a 404 for export, update and never appears in a search", async () => {
    const theirs = await newChat('bob', 'Secret plans');
    expect((await request('alice', 'GET', `/api/chats/${theirs}/export`)).status).toBe(404);
    expect((await request('alice', 'PATCH', `/api/chats/${theirs}`, { pinned: true })).status).toBe(404);
    expect((await search('alice', 'q=secret')).body.results).toEqual([]);
    expect((await search('bob', 'q=secret')).body.results.map((result) => result.chat.id)).toEqual([theirs]);
  });

  test.each([
    ['/api/chats/search', 'q must be the words to search for; got none.'],
    ['/api/chats/search?q=%20%20', 'q must be the words to search for; got none.'],
    ['/api/chats/search?q=%2A%2A', 'q must contain a word (letters or digits); got "**".'],
    [`/api/chats/search?q=${'a'.repeat(201)}`, 'q must be at most 200 characters; got 201.'],
    [
      `/api/chats/search?q=${Array.from({ length: 13 }, (_, index) => `w${index}`).join('+')}`,
      'q must have at most 12 distinct words; got 13.',
    ],
    ['/api/chats/search?q=a&limit=0', 'limit must be an integer from 1 to 50; got "0".'],
    ['/api/chats/search?q=a&limit=51', 'limit must be an integer from 1 to 50; got "51".'],
    ['/api/chats/search?q=a&limit=ten', 'limit must be an integer from 1 to 50; got "ten".'],
    ['/api/chats/search?q=a&offset=-1', 'offset must be an integer from 0 to 10000; got "-1".'],
    ['/api/chats/search?q=a&offset=1.5', 'offset must be an integer from 0 to 10000; got "1.5".'],
    ['/api/chats?archived=yes', 'archived must be true or false; got "yes".'],
  ])('GET %s is a 422 that says what is wrong', async (path, message) => {
    expect(await json('alice', 'GET', path)).toEqual({
      status: 422,
      body: { code: 'invalid_request', error: message },
    });
  });

  test('a bad export format and an empty update are 422s', async () => {
    const chat = await newChat('alice', 'Formats');
    expect(await json('alice', 'GET', `/api/chats/${chat}/export?format=pdf`)).toEqual({
      status: 422,
      body: { code: 'invalid_request', error: 'format must be markdown or json; got "pdf".' },
    });
    expect(await json('alice', 'PATCH', `/api/chats/${chat}`, {})).toEqual({
      status: 422,
      body: {
        code: 'invalid_request',
        error:
          'The body must set at least one of title, pinned, archived, model, provider or systemPrompt; got none.',
      },
    });
  });
});
