/**
 * Reruns in the chat service over the in-memory repositories and ledger (the database ones:
 * tests/http/chat/chat-reruns.test.ts): regenerate and edit replace the chat from a user message on, the
 * replaced turns leave the list, a rerun while a turn runs is busy, and the ledger forgets exactly the
 * reads of the replaced part.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatError } from '../../src/chat/chat-errors.ts';
import { ChatService } from '../../src/chat/chat-service.ts';
import { InMemoryChatRepository } from '../../src/chat/in-memory-chat-repository.ts';
import type { TurnEvent } from '../../src/contracts/turn-event.ts';
import { InMemoryFreshnessLedger } from '../../src/tools/freshness-ledger.ts';
import { hangUntilAborted, ScriptedProvider, textResponse } from '../helpers/scripted-provider.ts';
import { createTestWorkspaces, type TestWorkspaces } from '../helpers/test-workspaces.ts';
import { createTurnTools, loadRuntime } from '../helpers/turn-tools.ts';

let temporary: string;
let workspaces: TestWorkspaces;

beforeAll(async () => {
  temporary = realpathSync(mkdtempSync(join(tmpdir(), 'mango-chat-reruns-')));
  workspaces = createTestWorkspaces();
  await workspaces.service.grant('u1', temporary, false);
});
afterAll(() => {
  rmSync(temporary, { recursive: true, force: true });
  workspaces.dispose();
});

async function drain(events: AsyncIterable<TurnEvent>): Promise<TurnEvent[]> {
  const all: TurnEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

function setUp(provider: ScriptedProvider, available: () => boolean = () => true) {
  const { registry } = createTurnTools();
  const repository = new InMemoryChatRepository();
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const now = () => clock;
  const ledger = new InMemoryFreshnessLedger(now);
  const service = new ChatService({
    repository,
    createProvider: () => {
      if (!available()) throw new Error('no key');
      return provider;
    },
    loadToolRuntime: () => loadRuntime(registry),
    createLedger: () => ledger,
    workspaces: workspaces.service,
    now,
    executeOptions: { registry },
  });
  return { service, repository, ledger, tick: () => (clock += 1_000) };
}

const observation = (path: string) => ({
  path,
  sha256: 'b'.repeat(64),
  size: 1,
  mtimeMs: 1,
  coveredThrough: 1,
  complete: true,
});

describe('reruns over the in-memory repositories', () => {
  test('regenerate and edit replace from a user message on; replaced turns leave the list', async () => {
    const provider = new ScriptedProvider([
      textResponse('A1'),
      textResponse('A2'),
      textResponse('A2 again'),
      textResponse('A1 edited'),
    ]);
    const { service, repository, ledger, tick } = setUp(provider);
    const chat = await service.createChat('u1', {
      provider: 'openai',
      model: 'm',
      workingDirectory: temporary,
    });
    await drain(await service.startTurn('u1', chat.id, 'Q1'));
    await ledger.put(observation(join(temporary, 'kept.txt')));
    tick();
    await drain(await service.startTurn('u1', chat.id, 'Q2'));
    tick();
    await ledger.put(observation(join(temporary, 'replaced.txt')));
    tick();
    await drain(await service.regenerateTurn('u1', chat.id));
    expect((await repository.listMessages(chat.id)).map((row) => [row.seq, row.item])).toEqual([
      [1, { type: 'user_text', text: 'Q1' }],
      [2, { type: 'assistant_text', text: 'A1' }],
      [5, { type: 'user_text', text: 'Q2' }],
      [6, { type: 'assistant_text', text: 'A2 again' }],
    ]);
    expect(await ledger.get(join(temporary, 'replaced.txt'))).toBeUndefined();
    expect((await ledger.get(join(temporary, 'kept.txt')))?.complete).toBe(true);
    expect((await service.getChat('u1', chat.id)).turns.map((turn) => turn.messageSeqAtStart)).toEqual([
      0, 4,
    ]);

    tick();
    const [first] = await repository.listMessages(chat.id);
    await drain(await service.editMessage('u1', chat.id, first!.id, 'Q1 edited'));
    expect((await repository.listMessages(chat.id)).map((row) => row.seq)).toEqual([7, 8]);
    expect((await service.getChat('u1', chat.id)).turns.map((turn) => turn.messageSeqAtStart)).toEqual([6]);
    expect(await ledger.get(join(temporary, 'kept.txt'))).toBeUndefined();
    expect((await repository.listMessageHistory(chat.id)).filter((row) => row.discardedBy).length).toBe(6);
  });

  test('a rerun while a turn runs is busy and replaces nothing', async () => {
    const provider = new ScriptedProvider([textResponse('A1'), hangUntilAborted([])]);
    const { service, repository } = setUp(provider);
    const chat = await service.createChat('u1', {
      provider: 'openai',
      model: 'm',
      workingDirectory: temporary,
    });
    await drain(await service.startTurn('u1', chat.id, 'Q1'));
    const running = await service.startTurn('u1', chat.id, 'Q2');
    const refused = await service.regenerateTurn('u1', chat.id).catch((error: unknown) => error);
    expect(ChatError.isInstance(refused) && refused.code).toBe('busy');
    const [first] = await repository.listMessages(chat.id);
    const edit = await service.editMessage('u1', chat.id, first!.id, 'x').catch((error: unknown) => error);
    expect(ChatError.isInstance(edit) && edit.code).toBe('busy');
    expect((await repository.listMessages(chat.id)).map((row) => row.seq)).toEqual([1, 2, 3]);
    await service.cancelTurn('u1', chat.id);
    await drain(running);
  });

  test('retry refuses a failed turn that kept no message: it would rerun an older one', async () => {
    let available = true;
    const { service, repository } = setUp(new ScriptedProvider([textResponse('A1')]), () => available);
    const chat = await service.createChat('u1', {
      provider: 'openai',
      model: 'm',
      workingDirectory: temporary,
    });
    await drain(await service.startTurn('u1', chat.id, 'Q1'));
    available = false;
    const unavailable = await service.startTurn('u1', chat.id, 'Q2').catch((error: unknown) => error);
    expect(ChatError.isInstance(unavailable) && unavailable.code).toBe('provider_unavailable');
    const refused = await service.retryTurn('u1', chat.id).catch((error: unknown) => error);
    expect(ChatError.isInstance(refused) && [refused.code, refused.message]).toEqual([
      'nothing_to_rerun',
      `Chat ${chat.id}'s last turn failed before its message was kept (The turn could not start: ChatError: Provider "openai" is not available: no key); send the message again.`,
    ]);
    expect((await repository.listMessages(chat.id)).map((row) => row.seq)).toEqual([1, 2]);
  });
});
