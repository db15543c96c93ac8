import { describe, expect, test } from 'bun:test';
import type { TurnEvent } from '../../../src/chat/turn-events.ts';
import { createTurnEventStream, encodeTurnEventAsSse } from '../../../src/http/chat/turn-sse.ts';

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
