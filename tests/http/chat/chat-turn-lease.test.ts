/**
 * One turn at a time per chat across server instances (issue 7 "One turn at a time per chat (409 for a
 * second)"; README: several instances may share one PostgreSQL database and any instance serves any
 * chat). Two apps over one database — two instances — on SQLite and PostgreSQL: while instance A runs
 * a turn, instance B answers 409 busy; after A's turn ends, B runs one; a lease left by a crashed
 * instance expires.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseChatRepository } from '../../../src/db/database-chat-repository.ts';
import { type App, createApp } from '../../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../../src/http/app-dependencies.ts';
import { hangUntilAborted, ScriptedProvider, textResponse } from '../../helpers/scripted-provider.ts';
import { collectSseEvents } from '../../helpers/sse-client.ts';
import { createStubProviderRegistry } from '../../helpers/stub-provider-registry.ts';
import { createTestRegistry } from '../../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';

describe.each(BACKENDS)('turn lease across two instances on %s', (backend) => {
  let handle: TestDatabase;
  let workspace: string;
  let clock = Date.UTC(2026, 10, 30, 7, 0, 0);
  const instances: { deps: AppDependencies; app: App; provider: ScriptedProvider }[] = [];
  let token: string;

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    workspace = await realpath(await mkdtemp(join(tmpdir(), 'mango-turn-lease-')));
    for (let index = 0; index < 2; index++) {
      const provider = new ScriptedProvider([], { id: 'openai', repeat: textResponse('done') });
      const deps = createAppDependencies({
        config: handle.config,
        database: index === 0 ? handle.database : await handle.open(),
        registry: createTestRegistry(),
        now: () => clock,
        providers: createStubProviderRegistry({ openai: provider }),
        log: () => {},
      });
      instances.push({ deps, app: createApp(deps), provider });
    }
    token = (await instances[0]!.deps.users.create('alice')).token;
  });

  afterAll(async () => {
    await handle.dispose();
    await rm(workspace, { recursive: true, force: true });
  });

  const send = (instance: number, method: string, path: string, body?: unknown) =>
    instances[instance]!.app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );

  async function createChat(): Promise<string> {
    const response = await send(0, 'POST', '/api/chats', { provider: 'openai', model: 'm' });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  }

  test('while A runs a turn, B answers 409 busy; once it ended, B runs the next one', async () => {
    const chatId = await createChat();
    const hanging = new ScriptedProvider([hangUntilAborted([{ type: 'text_delta', delta: 'Hm' }])], {
      id: 'openai',
    });
    instances[0]!.deps.providers.get = () => hanging;
    const first = await send(0, 'POST', `/api/chats/${chatId}/turns`, { message: 'Hang.' });
    expect(first.status).toBe(200);

    const second = await send(1, 'POST', `/api/chats/${chatId}/turns`, { message: 'Me too.' });
    expect(second.status).toBe(409);
    expect(await second.json()).toEqual({
      error: 'This chat is already running a turn; wait for it to end or cancel it.',
      code: 'busy',
    });

    expect(await (await send(0, 'POST', `/api/chats/${chatId}/cancel`)).json()).toEqual({ cancelled: true });
    expect((await collectSseEvents(first)).at(-1)).toMatchObject({ type: 'done', reason: 'cancelled' });

    const third = await send(1, 'POST', `/api/chats/${chatId}/turns`, { message: 'Now?' });
    expect(third.status).toBe(200);
    expect((await collectSseEvents(third)).at(-1)).toEqual({ type: 'done', reason: 'completed' });
  });

  test('a cancel sent to B stops the turn A runs, within a second', async () => {
    const chatId = await createChat();
    const hanging = new ScriptedProvider([hangUntilAborted([{ type: 'text_delta', delta: 'Hm' }])], {
      id: 'openai',
    });
    instances[0]!.deps.providers.get = () => hanging;
    const turn = await send(0, 'POST', `/api/chats/${chatId}/turns`, { message: 'Hang.' });
    expect(turn.status).toBe(200);
    const cancelledAt = performance.now();
    expect(await (await send(1, 'POST', `/api/chats/${chatId}/cancel`)).json()).toEqual({ cancelled: true });
    expect((await collectSseEvents(turn)).at(-1)).toMatchObject({ type: 'done', reason: 'cancelled' });
    expect(performance.now() - cancelledAt).toBeLessThan(1_000);
    // Nothing runs any more: a cancel is answered false by either instance.
    for (const instance of [0, 1]) {
      expect(await (await send(instance, 'POST', `/api/chats/${chatId}/cancel`)).json()).toEqual({
        cancelled: false,
      });
    }
  });

  test('a lease left by a crashed instance expires: refused before, accepted after its expiry', async () => {
    const chatId = await createChat();
    await handle.database.sql`INSERT INTO chat_turn_leases (chat_id, owner, expires_at)
      VALUES (${chatId}, ${'crashed-instance'}, ${new Date(clock + 30_000).toISOString()})`;
    expect((await send(1, 'POST', `/api/chats/${chatId}/turns`, { message: 'Hi.' })).status).toBe(409);
    clock += 30_001;
    const after = await send(1, 'POST', `/api/chats/${chatId}/turns`, { message: 'Hi.' });
    expect(after.status).toBe(200);
    expect((await collectSseEvents(after)).at(-1)).toEqual({ type: 'done', reason: 'completed' });
    const rows = await handle.database.sql`SELECT chat_id FROM chat_turn_leases WHERE chat_id = ${chatId}`;
    expect(rows.length).toBe(0);
  });

  test('a chat deleted while its turn starts is 404 not_found, not a 500 from the lease insert', async () => {
    const database = handle.database;
    // Deletes the chat between the service's existence check and its lease claim (another request).
    class RacingRepository extends DatabaseChatRepository {
      override async claimTurnLease(chatId: string, owner: string, now: string, expiresAt: string) {
        await this.deleteChat(chatId);
        return super.claimTurnLease(chatId, owner, now, expiresAt);
      }
    }
    const racing = new RacingRepository(database);
    const deps = createAppDependencies({
      config: handle.config,
      database,
      registry: createTestRegistry(),
      now: () => clock,
      providers: createStubProviderRegistry({ openai: instances[0]!.provider }),
      chatRepository: racing,
      log: () => {},
    });
    const app = createApp(deps);
    const chatId = await createChat();
    const response = await app.handle(
      new Request(`http://localhost/api/chats/${chatId}/turns`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: JSON.stringify({ message: 'Hi.' }),
      }),
    );
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 404,
      body: { error: `No chat with id ${chatId}.`, code: 'not_found' },
    });
    expect(deps.chats.isBusy(chatId)).toBe(false);
  });

  test('deleting a chat removes its lease row', async () => {
    const chatId = await createChat();
    await handle.database.sql`INSERT INTO chat_turn_leases (chat_id, owner, expires_at)
      VALUES (${chatId}, ${'crashed-instance'}, ${new Date(clock + 30_000).toISOString()})`;
    expect((await send(1, 'DELETE', `/api/chats/${chatId}`)).status).toBe(204);
    const rows = await handle.database.sql`SELECT chat_id FROM chat_turn_leases WHERE chat_id = ${chatId}`;
    expect(rows.length).toBe(0);
  });
});
