/**
 * At most `MANGO_USER_MAX_TURNS` (default 4) turns of one user at once, across chats and across two
 * server instances over one database, on SQLite and PostgreSQL: the fifth start is 429 `too_many_turns`
 * with `Retry-After: 5`, stores nothing and leaves the chat free; another user's turn still starts; once
 * one of the user's turns ended the next one starts; starts sent to both instances at once let exactly
 * four through.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { type App, createApp } from '../../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../../src/http/app-dependencies.ts';
import { hangUntilAborted, ScriptedProvider } from '../../helpers/scripted-provider.ts';
import { collectSseEvents } from '../../helpers/sse-client.ts';
import { createStubProviderRegistry } from '../../helpers/stub-provider-registry.ts';
import { createTestRegistry } from '../../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';

const TOO_MANY_TURNS = {
  error:
    'You are already running 4 turns, the most one user may run at once (MANGO_USER_MAX_TURNS=4); wait for one of them to end or cancel one, then send the message again. Nothing was kept.',
  code: 'too_many_turns',
};

describe.each(BACKENDS)('the user turn limit across two instances on %s', (backend) => {
  let handle: TestDatabase;
  const instances: { deps: AppDependencies; app: App }[] = [];
  const tokens: Record<'alice' | 'bob', string> = { alice: '', bob: '' };
  const clock = Date.UTC(2026, 11, 2, 10, 0, 0);

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    // Every request hangs until its turn is cancelled: the turns stay running as long as the test says.
    const provider = new ScriptedProvider([], {
      id: 'openai',
      repeat: hangUntilAborted([{ type: 'text_delta', delta: 'Thinking' }]),
    });
    for (let index = 0; index < 2; index++) {
      const deps = createAppDependencies({
        config: handle.config,
        database: index === 0 ? handle.database : await handle.open(),
        registry: createTestRegistry(),
        now: () => clock,
        providers: createStubProviderRegistry({ openai: provider }),
        // The defaults, whatever the environment running the tests says.
        environment: {},
        externalTools: null,
        log: () => {},
      });
      instances.push({ deps, app: createApp(deps) });
    }
    tokens.alice = (await instances[0]!.deps.users.create('alice')).token;
    tokens.bob = (await instances[0]!.deps.users.create('bob')).token;
  });

  afterAll(() => handle.dispose());

  const send = (instance: number, user: 'alice' | 'bob', method: string, path: string, body?: unknown) =>
    instances[instance]!.app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${tokens[user]}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );

  async function createChats(user: 'alice' | 'bob', count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let index = 0; index < count; index++) {
      const response = await send(0, user, 'POST', '/api/chats', { provider: 'openai', model: 'm' });
      expect(response.status).toBe(201);
      ids.push(((await response.json()) as { id: string }).id);
    }
    return ids;
  }

  /** A running turn: where it runs, its chat and its stream. */
  interface Running {
    instance: number;
    user: 'alice' | 'bob';
    chatId: string;
    stream: Response;
  }

  async function start(instance: number, user: 'alice' | 'bob', chatId: string): Promise<Running> {
    const stream = await send(instance, user, 'POST', `/api/chats/${chatId}/turns`, { message: 'Go.' });
    expect(stream.status).toBe(200);
    return { instance, user, chatId, stream };
  }

  /** Cancels the turn on the instance running it and reads its stream to the end. */
  async function stop(turn: Running): Promise<void> {
    const cancel = await send(turn.instance, turn.user, 'POST', `/api/chats/${turn.chatId}/cancel`);
    expect(await cancel.json()).toEqual({ cancelled: true });
    expect((await collectSseEvents(turn.stream)).at(-1)).toMatchObject({ type: 'done', reason: 'cancelled' });
  }

  const runningRows = async () =>
    Number(
      (await handle.database.sql`SELECT COUNT(*) AS count FROM chat_turns WHERE state = 'running'`)[0].count,
    );

  test('the fifth turn is 429 with Retry-After and stores nothing; another user starts; one ended, the next starts', async () => {
    const chatIds = await createChats('alice', 5);
    // Two turns on each instance: the limit is the user's, not an instance's.
    const running = [
      await start(0, 'alice', chatIds[0]!),
      await start(1, 'alice', chatIds[1]!),
      await start(0, 'alice', chatIds[2]!),
      await start(1, 'alice', chatIds[3]!),
    ];

    const refused = await send(0, 'alice', 'POST', `/api/chats/${chatIds[4]}/turns`, { message: 'Five?' });
    expect({
      status: refused.status,
      retryAfter: refused.headers.get('retry-after'),
      body: await refused.json(),
    }).toEqual({ status: 429, retryAfter: '5', body: TOO_MANY_TURNS });
    // The other instance refuses it the same way.
    const elsewhere = await send(1, 'alice', 'POST', `/api/chats/${chatIds[4]}/turns`, { message: 'Five?' });
    expect({ status: elsewhere.status, body: await elsewhere.json() }).toEqual({
      status: 429,
      body: TOO_MANY_TURNS,
    });

    // Nothing was stored: no message, no turn record; and the chat is not left busy.
    const shown = (await (await send(1, 'alice', 'GET', `/api/chats/${chatIds[4]}`)).json()) as {
      messages: unknown[];
      turns: unknown[];
    };
    expect({ messages: shown.messages, turns: shown.turns }).toEqual({ messages: [], turns: [] });
    expect(instances.map(({ deps }) => deps.chats.isBusy(chatIds[4]!))).toEqual([false, false]);
    expect(await runningRows()).toBe(4);

    // Another user is not held by alice's limit.
    const [bobChat] = await createChats('bob', 1);
    running.push(await start(0, 'bob', bobChat!));

    // One of alice's turns ends: her fifth chat starts now, on either instance.
    await stop(running.shift()!);
    running.push(await start(1, 'alice', chatIds[4]!));
    const again = await send(0, 'alice', 'POST', `/api/chats/${chatIds[0]}/turns`, { message: 'Six?' });
    expect({ status: again.status, body: await again.json() }).toEqual({ status: 429, body: TOO_MANY_TURNS });

    for (const turn of running) await stop(turn);
    expect(await runningRows()).toBe(0);
  });

  test('eight starts sent to both instances at once: exactly four start, four are 429', async () => {
    const chatIds = await createChats('alice', 8);
    const responses = await Promise.all(
      chatIds.map((chatId, index) =>
        send(index % 2, 'alice', 'POST', `/api/chats/${chatId}/turns`, { message: 'All at once.' }),
      ),
    );
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429, 429, 429]);
    expect(await runningRows()).toBe(4);
    const started: Running[] = [];
    for (const [index, response] of responses.entries()) {
      if (response.status === 200) {
        started.push({ instance: index % 2, user: 'alice', chatId: chatIds[index]!, stream: response });
      } else expect(await response.json()).toEqual(TOO_MANY_TURNS);
    }
    for (const turn of started) await stop(turn);
    expect(await runningRows()).toBe(0);
  });
});
