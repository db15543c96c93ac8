/**
 * The turn event log's batching: seqs 1, 2, 3… in publish order; events published while a write is in
 * flight form the next batch, with consecutive deltas merged (text, and arguments of one call only);
 * a failed write makes every later publish reject with it.
 */
import { expect, test } from 'bun:test';
import { TurnEventLog } from '../../src/turns/turn-event-log.ts';
import type { StoredTurnEvent } from '../../src/turns/turn-repository.ts';

test('events published during a write become the next batch, consecutive deltas merged', async () => {
  const batches: StoredTurnEvent[][] = [];
  let release: () => void = () => {};
  const firstWrite = new Promise<void>((resolve) => {
    release = resolve;
  });
  let persistedCalls = 0;
  const log = new TurnEventLog(
    async (batch) => {
      batches.push(batch);
      if (batches.length === 1) await firstWrite;
    },
    () => {
      persistedCalls += 1;
    },
  );
  const published = [
    log.publish({ type: 'text_delta', delta: 'a' }),
    log.publish({ type: 'text_delta', delta: 'b' }),
    log.publish({ type: 'text_delta', delta: 'c' }),
    log.publish({ type: 'tool_call_arguments_delta', callId: 'x', delta: '{' }),
    log.publish({ type: 'tool_call_arguments_delta', callId: 'y', delta: '[' }),
    log.publish({ type: 'tool_call_arguments_delta', callId: 'y', delta: ']' }),
  ];
  release();
  await Promise.all(published);
  await log.flushAll();
  expect(batches.map((batch) => batch.map(({ seq, event }) => ({ seq, event })))).toEqual([
    [{ seq: 1, event: { type: 'text_delta', delta: 'a' } }],
    [
      { seq: 2, event: { type: 'text_delta', delta: 'bc' } },
      { seq: 3, event: { type: 'tool_call_arguments_delta', callId: 'x', delta: '{' } },
      { seq: 4, event: { type: 'tool_call_arguments_delta', callId: 'y', delta: '[]' } },
    ],
  ]);
  const lengths = batches.flat().map(({ event }) => JSON.stringify(event).length);
  expect(batches.flat().map((stored) => stored.endOffset)).toEqual(
    lengths.map((_, index) => lengths.slice(0, index + 1).reduce((sum, length) => sum + length, 0)),
  );
  expect(log.persisted).toEqual({ seq: 4, endOffset: batches.flat().at(-1)!.endOffset });
  expect(persistedCalls).toBe(2);
});

test('a failed write: later publishes and flushAll reject with its error', async () => {
  const failure = new Error('fenced');
  const log = new TurnEventLog(
    async () => {
      throw failure;
    },
    () => {},
  );
  await log.publish({ type: 'text_delta', delta: 'a' });
  await expect(log.flushAll()).rejects.toBe(failure);
  await expect(log.publish({ type: 'text_delta', delta: 'b' })).rejects.toBe(failure);
  expect(log.persisted).toEqual({ seq: 0, endOffset: 0 });
});
