/**
 * What `POST /api/chats/:id/turns` acknowledges is stored (docs/turns.md, "What an acknowledged turn
 * keeps"), with faults injected exactly at the commit of the turn's user message, on SQLite and
 * PostgreSQL:
 * - the lease is lost just before that commit (the instance was paused, another took the chat over):
 *   the answer is 503 `turn_not_started`, never a 200 whose message is then missing, and the chat is
 *   free again at once;
 * - the commit is held (an instance killed at this point would never reply): no 200 leaves the server
 *   before the message is committed;
 * - the commit succeeds but its reply is lost: the retry finds the row, so the message is stored once;
 * - the chat is deleted just before that commit: 404, as for a chat that never existed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import type { ConversationItem } from '../../../src/contracts/conversation-item.ts';
import type { Database } from '../../../src/db/database.ts';
import { DatabaseChatRepository } from '../../../src/db/database-chat-repository.ts';
import { DatabaseTurnRepository } from '../../../src/db/database-turn-repository.ts';
import { type App, createApp } from '../../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../../src/http/app-dependencies.ts';
import type { TurnFence } from '../../../src/turns/turn-fence.ts';
import { ScriptedProvider, textResponse } from '../../helpers/scripted-provider.ts';
import { collectSseEvents } from '../../helpers/sse-client.ts';
import { createStubProviderRegistry } from '../../helpers/stub-provider-registry.ts';
import { createTestRegistry } from '../../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';

/** Runs before the real commit of a turn's user message; the test decides what happens there. */
type UserMessageFault = (fence: TurnFence, commit: () => Promise<void>) => Promise<void>;

describe.each(BACKENDS)('the user message of an acknowledged turn on %s', (backend) => {
  let handle: TestDatabase;
  let deps: AppDependencies;
  let app: App;
  let token: string;
  let userId: string;
  /** Replaced per test; undefined: no fault. */
  let fault: UserMessageFault | undefined;

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    const database: Database = handle.database;
    class FaultyTurnRepository extends DatabaseTurnRepository {
      override async appendTurnMessage(fence: TurnFence, chatId: string, id: string, item: ConversationItem) {
        const active = fault;
        if (item.type !== 'user_text' || active === undefined) {
          return super.appendTurnMessage(fence, chatId, id, item);
        }
        let stored: Awaited<ReturnType<DatabaseTurnRepository['appendTurnMessage']>> | undefined;
        await active(fence, async () => {
          stored = await super.appendTurnMessage(fence, chatId, id, item);
        });
        return stored ?? super.appendTurnMessage(fence, chatId, id, item);
      }
    }
    class FaultyRepository extends DatabaseChatRepository {
      override readonly turns = new FaultyTurnRepository(database);
    }
    deps = createAppDependencies({
      config: handle.config,
      database,
      registry: createTestRegistry(),
      providers: createStubProviderRegistry({
        openai: new ScriptedProvider([], { id: 'openai', repeat: textResponse('Answer.') }),
      }),
      chatRepository: new FaultyRepository(database),
      log: () => {},
    });
    app = createApp(deps);
    const created = await deps.users.create('alice');
    token = created.token;
    userId = created.user.id;
  }, 30_000);

  afterEach(() => {
    fault = undefined;
  });

  afterAll(async () => {
    await handle.dispose();
  });

  const send = (method: string, path: string, body?: unknown) =>
    app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );

  async function createChat(): Promise<string> {
    const response = await send('POST', '/api/chats', { provider: 'openai', model: 'm' });
    expect(response.status).toBe(201);
    return ((await response.json()) as { id: string }).id;
  }

  async function storedItems(chatId: string): Promise<unknown[]> {
    return (await deps.chats.getChat(userId, chatId)).messages.map((message) => message.item);
  }

  test('lease lost just before the commit: 503 turn_not_started, nothing stored, chat free at once', async () => {
    const chatId = await createChat();
    fault = async (fence) => {
      // Another instance's view: this holder's lease lapsed before its write arrived.
      await handle.database.sql`UPDATE chat_turns SET lease_expires_at = ${'2000-01-01T00:00:00.000Z'}
        WHERE id = ${fence.turnId}`;
    };
    const refused = await send('POST', `/api/chats/${chatId}/turns`, { message: 'Lost?' });
    fault = undefined;
    expect({ status: refused.status, body: await refused.json() }).toEqual({
      status: 503,
      body: {
        error:
          'The turn could not start: its message could not be saved while this instance held the chat (its lease was lost or the database could not be reached). Nothing was kept; send the message again.',
        code: 'turn_not_started',
      },
    });
    expect(await storedItems(chatId)).toEqual([]);
    expect(deps.chats.isBusy(chatId)).toBe(false);

    const again = await send('POST', `/api/chats/${chatId}/turns`, { message: 'Again.' });
    expect(again.status).toBe(200);
    expect((await collectSseEvents(again)).at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect(await storedItems(chatId)).toEqual([
      { type: 'user_text', text: 'Again.' },
      { type: 'assistant_text', text: 'Answer.' },
    ]);
  });

  test('chat deleted just before the commit: 404 not_found, as for a chat that never existed', async () => {
    const chatId = await createChat();
    fault = async () => {
      await new DatabaseChatRepository(handle.database).deleteChat(chatId);
    };
    const refused = await send('POST', `/api/chats/${chatId}/turns`, { message: 'Gone?' });
    expect({ status: refused.status, body: await refused.json() }).toEqual({
      status: 404,
      body: { error: `No chat with id ${chatId}.`, code: 'not_found' },
    });
    expect(deps.chats.isBusy(chatId)).toBe(false);
  });

  test('commit held: the 200 leaves only after the user message is committed', async () => {
    const chatId = await createChat();
    let committed = false;
    let reached: () => void = () => {};
    const atCommit = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    fault = async (_fence, commit) => {
      reached();
      await released;
      await commit();
      committed = true;
    };
    let committedWhenAcknowledged: boolean | undefined;
    const response = send('POST', `/api/chats/${chatId}/turns`, { message: 'Kept?' }).then((answer) => {
      committedWhenAcknowledged = committed;
      return answer;
    });
    await atCommit;
    release();
    const answer = await response;
    fault = undefined;
    expect({ status: answer.status, committedWhenAcknowledged }).toEqual({
      status: 200,
      committedWhenAcknowledged: true,
    });
    expect((await collectSseEvents(answer)).at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect(await storedItems(chatId)).toEqual([
      { type: 'user_text', text: 'Kept?' },
      { type: 'assistant_text', text: 'Answer.' },
    ]);
  });

  test('commit done but its reply lost: the retry finds the row, the message is stored once', async () => {
    const chatId = await createChat();
    let attempts = 0;
    fault = async (_fence, commit) => {
      attempts += 1;
      if (attempts > 1) return;
      await commit();
      throw new Error('Connection closed');
    };
    const answer = await send('POST', `/api/chats/${chatId}/turns`, { message: 'Once.' });
    expect(answer.status).toBe(200);
    expect((await collectSseEvents(answer)).at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect({ attempts, items: await storedItems(chatId) }).toEqual({
      attempts: 2,
      items: [
        { type: 'user_text', text: 'Once.' },
        { type: 'assistant_text', text: 'Answer.' },
      ],
    });
  });
});
