import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  createDatabaseLedgerFactory,
  DatabaseFreshnessLedger,
  deleteChatObservations,
} from '../../src/db/database-freshness-ledger.ts';
import { InMemoryFreshnessLedger } from '../../src/tools/freshness-ledger.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

const observation = {
  path: '/work/ü/file.ts',
  sha256: 'a'.repeat(64),
  size: 5_000_000_000,
  mtimeMs: 1764482400123.25,
  coveredThrough: 2000,
  complete: false,
};

describe.each(BACKENDS)('DatabaseFreshnessLedger on %s', (backend) => {
  let handle: TestDatabase;
  beforeAll(async () => {
    handle = await createTestDatabase(backend);
  }, 30_000);
  afterAll(() => handle.dispose());

  test('put/get/delete round-trip exactly, and chats do not see each other', async () => {
    const ledgerForChat = createDatabaseLedgerFactory(handle.database);
    const chatA = ledgerForChat('chat-a');
    const chatB = ledgerForChat('chat-b');
    expect(await chatA.get(observation.path)).toBeUndefined();
    await chatA.put(observation);
    expect(await chatA.get(observation.path)).toEqual(observation);
    expect(await chatB.get(observation.path)).toBeUndefined();
    await chatA.put({ ...observation, complete: true, coveredThrough: 4000 });
    expect(await chatA.get(observation.path)).toEqual({
      ...observation,
      complete: true,
      coveredThrough: 4000,
    });
    await chatA.delete(observation.path);
    expect(await chatA.get(observation.path)).toBeUndefined();
  });

  test('coveredRanges round-trip, and an observation without them clears them', async () => {
    const ledger = new DatabaseFreshnessLedger(handle.database, 'chat-ranges');
    const withRanges = {
      ...observation,
      coveredRanges: [
        [2101, 2500],
        [4001, 4100],
      ] as [number, number][],
    };
    await ledger.put(withRanges);
    expect(await ledger.get(observation.path)).toEqual(withRanges);
    await ledger.put(observation);
    const cleared = await ledger.get(observation.path);
    expect(cleared).toEqual(observation);
    expect(cleared && 'coveredRanges' in cleared).toBe(false);
  });

  test('survives a restart (a new connection sees what the old one recorded)', async () => {
    await new DatabaseFreshnessLedger(handle.database, 'chat-r').put(observation);
    const database = await handle.reopen();
    expect(await new DatabaseFreshnessLedger(database, 'chat-r').get(observation.path)).toEqual(observation);
    await deleteChatObservations(database, 'chat-r');
    expect(await new DatabaseFreshnessLedger(database, 'chat-r').get(observation.path)).toBeUndefined();
  });

  test('a call without a chat gets a private in-memory ledger', () => {
    expect(createDatabaseLedgerFactory(handle.database)(undefined)).toBeInstanceOf(InMemoryFreshnessLedger);
  });
});
