/** The turn trace keeps what messages do not hold, in place, and stays bounded. */
import { describe, expect, test } from 'bun:test';
import { MAX_PROGRESS_BYTES, MAX_TRACE_EVENTS, TurnTraceRecorder } from '../../src/turns/turn-trace.ts';

describe('TurnTraceRecorder', () => {
  test('keeps progress, durations, retries, finishes and done; drops what messages hold', () => {
    const recorder = new TurnTraceRecorder();
    recorder.record({ type: 'provider_retry', attempt: 1, waitSeconds: 2 });
    recorder.record({ type: 'text_delta', delta: 'Hi' });
    recorder.itemSaved();
    recorder.record({ type: 'tool_call_started', callId: 'c', name: 'bash' });
    recorder.record({ type: 'tool_progress', callId: 'c', name: 'bash', progress: { type: 'stdout' } });
    recorder.record({
      type: 'tool_result',
      callId: 'c',
      name: 'bash',
      durationMs: 12,
      ok: true,
      result: 'x',
    });
    recorder.itemSaved();
    recorder.record({ type: 'done', reason: 'completed' });
    expect(recorder.trace).toEqual({
      version: 1,
      dropped: 0,
      events: [
        { at: 0, event: { type: 'provider_retry', attempt: 1, waitSeconds: 2 } },
        { at: 1, event: { type: 'tool_progress', callId: 'c', name: 'bash', progress: { type: 'stdout' } } },
        { at: 1, event: { type: 'tool_result', callId: 'c', name: 'bash', ok: true, durationMs: 12 } },
        { at: 2, event: { type: 'done', reason: 'completed' } },
      ],
    });
  });

  test('a large progress event keeps its type; past the cap events are counted, done still kept', () => {
    const recorder = new TurnTraceRecorder();
    const big = { type: 'chunk', text: 'z'.repeat(MAX_PROGRESS_BYTES) };
    recorder.record({ type: 'tool_progress', callId: 'c', name: 'bash', progress: big });
    for (let index = 1; index < MAX_TRACE_EVENTS + 10; index += 1) {
      recorder.record({ type: 'tool_progress', callId: 'c', name: 'bash', progress: { type: 'tick' } });
    }
    recorder.record({ type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' });
    const { events, dropped } = recorder.trace;
    expect(events[0]!.event).toEqual({
      type: 'tool_progress',
      callId: 'c',
      name: 'bash',
      progress: { type: 'chunk', truncated: true },
    });
    expect(events).toHaveLength(MAX_TRACE_EVENTS + 1);
    expect(dropped).toBe(10);
    expect(events.at(-1)!.event).toEqual({
      type: 'done',
      reason: 'cancelled',
      message: 'The turn was cancelled.',
    });
  });
});
