import { describe, expect, test } from 'bun:test';
import type { TurnEvent } from '../../../src/contracts/turn-event.ts';
import { createTurnEventStream, encodeTurnEventAsSse } from '../../../src/http/chat/turn-sse.ts';
import { waitUntil } from '../../helpers/wait-until.ts';

describe('encodeTurnEventAsSse', () => {
  const cases: { event: TurnEvent; encoded: string }[] = [
    {
      event: { type: 'text_delta', delta: 'line one\nline two\r\n' },
      encoded: 'data: {"type":"text_delta","delta":"line one\\nline two\\r\\n"}\n\n',
    },
    {
      event: { type: 'done', reason: 'completed' },
      encoded: 'data: {"type":"done","reason":"completed"}\n\n',
    },
    {
      event: {
        type: 'tool_result',
        callId: 'c',
        name: 'grep',
        durationMs: 3,
        ok: false,
        error: { classification: 'timeout', message: 'late' },
      },
      encoded:
        'data: {"type":"tool_result","callId":"c","name":"grep","durationMs":3,"ok":false,"error":{"classification":"timeout","message":"late"}}\n\n',
    },
    {
      event: { type: 'tool_result', callId: 'c', name: 'big', durationMs: 1, ok: true, result: { n: 1n } },
      encoded:
        'data: {"type":"tool_result","callId":"c","name":"big","durationMs":1,"ok":false,"error":{"classification":"execution_error","message":"This event could not be serialized to JSON: JSON.stringify cannot serialize BigInt."}}\n\n',
    },
  ];
  for (const { event, encoded } of cases) {
    test(`encodes ${event.type} as one data line`, () => {
      expect(encodeTurnEventAsSse(event)).toBe(encoded);
      expect(
        encodeTurnEventAsSse(event)
          .split('\n')
          .filter((line) => line !== ''),
      ).toHaveLength(1);
    });
  }
});

describe('createTurnEventStream', () => {
  test('streams every event and closes after the last', async () => {
    async function* events(): AsyncGenerator<TurnEvent> {
      yield { type: 'text_delta', delta: 'hi' };
      yield { type: 'done', reason: 'completed' };
    }
    const text = await new Response(createTurnEventStream(events(), { heartbeatMilliseconds: 0 })).text();
    expect(text).toBe(
      'data: {"type":"text_delta","delta":"hi"}\n\ndata: {"type":"done","reason":"completed"}\n\n',
    );
  });

  test('a client that goes away returns the event iterator', async () => {
    let returned = false;
    async function* events(): AsyncGenerator<TurnEvent> {
      try {
        yield { type: 'text_delta', delta: 'hi' };
        await new Promise(() => {});
      } finally {
        returned = true;
      }
    }
    const reader = createTurnEventStream(events(), { heartbeatMilliseconds: 0 }).getReader();
    await reader.read();
    await reader.cancel();
    expect(returned).toBe(true);
  });
});

test('openingComment: the stream starts with ": turn started" before any event', async () => {
  async function* events(): AsyncGenerator<TurnEvent> {
    yield { type: 'done', reason: 'completed' };
  }
  const stream = createTurnEventStream(events(), { openingComment: true, heartbeatMilliseconds: 0 });
  expect(await new Response(stream).text()).toBe(
    ': turn started\n\ndata: {"type":"done","reason":"completed"}\n\n',
  );
});

describe('createTurnEventStream: clients far behind', () => {
  /** A follower that never yields on its own and reports the scripted lags, one per measure. */
  function follower(lags: number[]) {
    let returned = false;
    const measured: number[] = [];
    const events = {
      lastSeq: undefined,
      next: () => new Promise<IteratorResult<TurnEvent>>(() => {}),
      return: async () => {
        returned = true;
        return { done: true as const, value: undefined };
      },
      lagBytes: async () => {
        const lag = lags[Math.min(measured.length, lags.length - 1)]!;
        measured.push(lag);
        return lag;
      },
    };
    return { events, measured, wasReturned: () => returned };
  }
  const MiB = 1024 * 1024;

  test('more than 1 MiB behind and not catching up between two measures: dropped, the follower returned', async () => {
    const source = follower([2 * MiB, 2 * MiB]);
    const reader = createTurnEventStream(source.events, { heartbeatMilliseconds: 0 }).getReader();
    await expect(reader.read()).rejects.toBeUndefined();
    expect(source.measured).toEqual([2 * MiB, 2 * MiB]);
    expect(source.wasReturned()).toBe(true);
  });

  test('far behind but catching up (a replay), or within 1 MiB: kept', async () => {
    for (const lags of [
      [9 * MiB, 6 * MiB, 3 * MiB, 0],
      [MiB, MiB, MiB, MiB],
    ]) {
      const source = follower(lags);
      const stream = createTurnEventStream(source.events, { heartbeatMilliseconds: 0 });
      const reader = stream.getReader();
      const pending = reader.read();
      expect(await waitUntil(() => source.measured.length >= 4, 10_000)).toBe(true);
      expect(source.wasReturned()).toBe(false);
      await reader.cancel();
      await pending.catch(() => {});
      expect(source.wasReturned()).toBe(true);
    }
  });
});
