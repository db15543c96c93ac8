/**
 * One turn at a time per chat across server instances (409 for a second turn;
 * README: several instances may share one PostgreSQL database and any instance serves any
 * chat). Two apps over one database — two instances — on SQLite and PostgreSQL: while instance A runs
 * a turn, instance B answers 409 busy; after A's turn ends, B runs one; a lease left by a crashed
 * instance expires; a cancel of a turn whose holder is gone says so instead of claiming success.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseChatRepository } from '../../../src/db/database-chat-repository.ts';
import { DatabaseTurnRepository } from '../../../src/db/database-turn-repository.ts';
import { type App, createApp } from '../../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../../src/http/app-dependencies.ts';
import type { ClaimTurnInput } from '../../../src/turns/turn-repository.ts';
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
  }, 30_000);

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
        reason: 'No turn is running in this chat.',
      });
    }
  });

  /** A running turn record of an instance on another machine (never provably dead from here). */
  async function insertForeignTurn(chatId: string, expiresAt: number): Promise<void> {
    await handle.database.sql`INSERT INTO chat_turns (id, chat_id, fencing_token, holder, state,
        lease_expires_at, started_at, message_seq_at_start)
      VALUES (${crypto.randomUUID()}, ${chatId}, 1, ${'v1/other-machine/1/1/1/x'}, 'running',
        ${new Date(expiresAt).toISOString()}, ${new Date(clock).toISOString()}, 0)`;
  }

  test('a lease left by a crashed instance expires: refused before, accepted after its expiry', async () => {
    const chatId = await createChat();
    await insertForeignTurn(chatId, clock + 30_000);
    expect((await send(1, 'POST', `/api/chats/${chatId}/turns`, { message: 'Hi.' })).status).toBe(409);
    clock += 30_001;
    const after = await send(1, 'POST', `/api/chats/${chatId}/turns`, { message: 'Hi.' });
    expect(after.status).toBe(200);
    expect((await collectSseEvents(after)).at(-1)).toEqual({ type: 'done', reason: 'completed' });
    const rows = await handle.database.sql`SELECT fencing_token, state FROM chat_turns
      WHERE chat_id = ${chatId} ORDER BY fencing_token`;
    expect(
      rows.map((row: { fencing_token: unknown; state: string }) => [Number(row.fencing_token), row.state]),
    ).toEqual([
      [1, 'lost'],
      [2, 'completed'],
    ]);
  });

  test('a cancel of a chat whose lease holder is gone: cancelled false with the reason, chat free', async () => {
    const chatId = await createChat();
    await insertForeignTurn(chatId, clock + 30_000);
    clock += 30_001;
    expect(await (await send(0, 'POST', `/api/chats/${chatId}/cancel`)).json()).toEqual({
      cancelled: false,
      reason:
        'The instance that ran the turn is gone (it stopped renewing its lease); nothing was running, and the chat is free again.',
    });
    const next = await send(1, 'POST', `/api/chats/${chatId}/turns`, { message: 'Hi.' });
    expect(next.status).toBe(200);
    expect((await collectSseEvents(next)).at(-1)).toEqual({ type: 'done', reason: 'completed' });
  });

  test('a chat deleted while its turn starts is 404 not_found, not a 500 from the claim', async () => {
    const database = handle.database;
    // Deletes the chat between the service's existence check and its claim (another request).
    class RacingTurnRepository extends DatabaseTurnRepository {
      override async claimTurn(input: ClaimTurnInput) {
        await new DatabaseChatRepository(database).deleteChat(input.chatId);
        return super.claimTurn(input);
      }
    }
    class RacingRepository extends DatabaseChatRepository {
      override readonly turns = new RacingTurnRepository(database);
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

  test('deleting a chat removes its turn records and their events', async () => {
    const chatId = await createChat();
    const turn = await send(0, 'POST', `/api/chats/${chatId}/turns`, { message: 'Hi.' });
    await collectSseEvents(turn);
    const [record] = await handle.database.sql`SELECT id FROM chat_turns WHERE chat_id = ${chatId}`;
    const stored = await handle.database.sql`SELECT seq FROM chat_turn_events WHERE turn_id = ${record.id}`;
    expect(stored.length).toBeGreaterThan(1);
    expect((await send(1, 'DELETE', `/api/chats/${chatId}`)).status).toBe(204);
    const turns = await handle.database.sql`SELECT id FROM chat_turns WHERE chat_id = ${chatId}`;
    const events = await handle.database.sql`SELECT seq FROM chat_turn_events WHERE turn_id = ${record.id}`;
    expect(turns.length).toBe(0);
    expect(events.length).toBe(0);
  });
});
