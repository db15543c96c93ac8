/**
 * `DatabaseChatRepository` on SQLite and PostgreSQL: chats round-trip exactly, listing is per user and
 * newest first, messages get consecutive `seq`s and their items back byte for byte, appending to a
 * missing chat rejects, and deleting a chat removes its messages and its freshness-ledger rows.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { NewChat } from '../../src/chat/chat-repository.ts';
import type { ConversationItem } from '../../src/contracts/conversation-item.ts';
import { DatabaseChatRepository } from '../../src/db/database-chat-repository.ts';
import { createDatabaseLedgerFactory } from '../../src/db/database-freshness-ledger.ts';
import { DatabaseUserRepository } from '../../src/db/database-user-repository.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

function makeChat(overrides: Partial<NewChat> & Pick<NewChat, 'id' | 'userId'>): NewChat {
  return {
    title: 'Fix the build — ü',
    workingDirectory: '/srv/projects/app',
    confined: true,
    provider: 'anthropic',
    model: 'claude-test',
    systemPrompt: 'Answer briefly.',
    createdAt: '2026-11-30T06:00:00.000Z',
    ...overrides,
  };
}

const ITEMS: ConversationItem[] = [
  { type: 'user_text', text: 'find TODOs\nplease' },
  { type: 'provider_item', provider: 'openai', data: { type: 'reasoning', id: 'rs_1', summary: [] } },
  { type: 'assistant_text', text: 'Searching…' },
  {
    type: 'tool_call',
    callId: 'call_1',
    name: 'grep',
    arguments: '{"pattern":"TODO"}',
    providerData: { thoughtSignature: 'c2ln' },
  },
  { type: 'tool_result', callId: 'call_1', name: 'grep', ok: true, output: '{"matches":[]}' },
];

describe.each(BACKENDS)('DatabaseChatRepository on %s', (backend) => {
  let handle: TestDatabase;
  let repository: DatabaseChatRepository;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    repository = new DatabaseChatRepository(handle.database);
    const users = new DatabaseUserRepository(handle.database);
    alice = (await users.create('alice')).user.id;
    bob = (await users.create('bob')).user.id;
  }, 30_000);
  afterAll(() => handle.dispose());

  test('a chat round-trips exactly, including nulls and restricted false', async () => {
    const full = makeChat({ id: 'chat-full', userId: alice });
    const bare = makeChat({
      id: 'chat-bare',
      userId: alice,
      workingDirectory: null,
      confined: false,
      systemPrompt: null,
      provider: 'openai-compatible',
    });
    await repository.createChat(full);
    await repository.createChat(bare);
    // A new chat's activity starts at its creation, neither pinned nor archived.
    const stored = { lastActivityAt: '2026-11-30T06:00:00.000Z', pinnedAt: null, archivedAt: null };
    expect(await repository.getChat('chat-full')).toEqual({ ...full, ...stored });
    expect(await repository.getChat('chat-bare')).toEqual({ ...bare, ...stored });
    expect(await repository.getChat('missing')).toBeUndefined();
    await expect(repository.createChat(full)).rejects.toThrow();
  });

  test("listChats returns only the user's chats, newest first", async () => {
    await repository.createChat(
      makeChat({ id: 'chat-new', userId: alice, createdAt: '2026-11-30T07:00:00.000Z' }),
    );
    await repository.createChat(makeChat({ id: 'chat-bob', userId: bob }));
    const ids = (await repository.listChats(alice)).map((chat) => chat.id);
    expect(ids[0]).toBe('chat-new');
    expect(ids.sort()).toEqual(['chat-bare', 'chat-full', 'chat-new']);
    expect((await repository.listChats(bob)).map((chat) => chat.id)).toEqual(['chat-bob']);
  });

  test('messages get seq 1, 2, 3… and their items back exactly, with the role of each item', async () => {
    for (const [index, item] of ITEMS.entries()) {
      const message = await repository.appendMessage('chat-full', item, `2026-11-30T06:00:0${index}.000Z`);
      expect(message.seq).toBe(index + 1);
      expect(message.item).toEqual(item);
    }
    const messages = await repository.listMessages('chat-full');
    expect(messages.map((message) => message.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'assistant',
      'assistant',
      'tool',
    ]);
    expect(messages.map((message) => message.item)).toEqual(ITEMS);
    expect(messages.every((message) => message.chatId === 'chat-full')).toBe(true);
    expect(messages[4]?.createdAt).toBe('2026-11-30T06:00:04.000Z');
    // Another chat's numbering is independent.
    expect((await repository.appendMessage('chat-bare', ITEMS[0]!, '2026-11-30T06:00:00.000Z')).seq).toBe(1);
  });

  test('concurrent appends to one chat get distinct consecutive seqs', async () => {
    await repository.createChat(makeChat({ id: 'chat-race', userId: alice }));
    await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        repository.appendMessage(
          'chat-race',
          { type: 'user_text', text: String(index) },
          '2026-11-30T06:00:00.000Z',
        ),
      ),
    );
    const messages = await repository.listMessages('chat-race');
    expect(messages.map((message) => message.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  test('appending to a chat that does not exist rejects and stores nothing', async () => {
    await expect(repository.appendMessage('missing', ITEMS[0]!, '2026-11-30T06:00:00.000Z')).rejects.toThrow(
      'does not exist',
    );
    expect(await repository.listMessages('missing')).toEqual([]);
  });

  test('deleting a chat deletes its messages and freshness-ledger rows, and nothing of other chats', async () => {
    const ledgerForChat = createDatabaseLedgerFactory(handle.database);
    const observation = {
      path: '/srv/projects/app/a.ts',
      sha256: 'b'.repeat(64),
      size: 10,
      mtimeMs: 1,
      coveredThrough: 10,
      complete: true,
    };
    await ledgerForChat('chat-full').put(observation);
    await ledgerForChat('chat-bare').put(observation);
    expect(await repository.deleteChat('chat-full')).toBe(true);
    expect(await repository.deleteChat('chat-full')).toBe(false);
    expect(await repository.getChat('chat-full')).toBeUndefined();
    expect(await repository.listMessages('chat-full')).toEqual([]);
    expect(await ledgerForChat('chat-full').get(observation.path)).toBeUndefined();
    expect(await ledgerForChat('chat-bare').get(observation.path)).toEqual(observation);
    expect(await repository.listMessages('chat-bare')).toHaveLength(1);
  });
  test('renameChat sets the title; with currentTitle only while the title is still that', async () => {
    await repository.createChat(makeChat({ id: 'chat-rename', userId: alice, title: 'New chat' }));
    expect(await repository.renameChat('chat-rename', 'Chosen by the user')).toBe(true);
    expect(await repository.renameChat('chat-rename', 'Derived', 'New chat')).toBe(false);
    expect((await repository.getChat('chat-rename'))?.title).toBe('Chosen by the user');
    expect(await repository.renameChat('chat-rename', 'Derived', 'Chosen by the user')).toBe(true);
    expect((await repository.getChat('chat-rename'))?.title).toBe('Derived');
    expect(await repository.renameChat('no-such-chat', 'X')).toBe(false);
  });
});
