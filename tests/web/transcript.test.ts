import { describe, expect, test } from 'bun:test';
import type { TurnStreamEvent } from '../../web/sse-parser.ts';
import { applyTurnEvent, emptyTranscript, type ToolCallEntry } from '../../web/transcript.ts';
import { transcriptFromHistory } from '../../web/transcript-from-history.ts';

function fold(events: TurnStreamEvent[]) {
  const transcript = emptyTranscript();
  transcript.running = true;
  for (const event of events) applyTurnEvent(transcript, event);
  return transcript;
}

describe('applyTurnEvent', () => {
  test('text deltas join into one assistant entry; a tool call card streams its arguments and result', () => {
    const transcript = fold([
      { type: 'text_delta', delta: 'Let me ' },
      { type: 'text_delta', delta: 'look.' },
      { type: 'tool_call_started', callId: 'c1', name: 'read_file' },
      { type: 'tool_call_arguments_delta', callId: 'c1', delta: '{"path":' },
      { type: 'tool_call_arguments_delta', callId: 'c1', delta: '"a.txt"}' },
    ]);
    const call = transcript.entries[1] as ToolCallEntry;
    expect(transcript.entries[0]).toEqual({ kind: 'assistant', text: 'Let me look.' });
    expect(call.status).toBe('streaming');
    expect(call.argumentsText).toBe('{"path":"a.txt"}');

    applyTurnEvent(transcript, {
      type: 'tool_call_completed',
      callId: 'c1',
      name: 'read_file',
      arguments: '{"path":"a.txt"}',
    });
    expect(call.status).toBe('running');
    applyTurnEvent(transcript, {
      type: 'tool_result',
      callId: 'c1',
      ok: true,
      result: { content: '1\thi' },
      durationMs: 12,
    });
    expect(call).toMatchObject({ status: 'succeeded', result: { content: '1\thi' }, durationMs: 12 });

    applyTurnEvent(transcript, { type: 'text_delta', delta: 'It says hi.' });
    applyTurnEvent(transcript, { type: 'done', reason: 'completed' });
    expect(transcript.entries.at(-1)).toEqual({ kind: 'assistant', text: 'It says hi.' });
    expect(transcript.running).toBe(false);
    expect(transcript.doneReason).toBe('completed');
  });

  test('a failed result keeps its classification and message', () => {
    const transcript = fold([
      { type: 'tool_call_completed', callId: 'c2', name: 'grep', arguments: '{}' },
      {
        type: 'tool_result',
        callId: 'c2',
        ok: false,
        error: { classification: 'validation_failed', message: 'pattern is required' },
        durationMs: 1,
      },
    ]);
    expect(transcript.entries[0]).toMatchObject({
      status: 'failed',
      error: { classification: 'validation_failed', message: 'pattern is required' },
    });
  });

  test.each<[string, 'info' | 'error', string]>([
    ['cancelled', 'info', 'Turn cancelled.'],
    ['max_iterations', 'error', 'Stopped: the turn reached its tool-call iteration limit.'],
    ['error', 'error', 'The turn ended with an error.'],
  ])('done %s marks open calls cancelled and adds a notice', (reason, tone, text) => {
    const transcript = fold([
      { type: 'tool_call_completed', callId: 'c3', name: 'bash', arguments: '{"command":"sleep 60"}' },
      { type: 'done', reason },
    ]);
    expect(transcript.entries[0]).toMatchObject({ status: 'failed', error: { classification: 'cancelled' } });
    expect(transcript.entries.at(-1)).toEqual({ kind: 'notice', tone, text });
  });

  test('a cancelled turn says so once, in the server’s words when it sent some', () => {
    const transcript = fold([
      { type: 'text_delta', delta: 'Partial' },
      { type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' },
    ]);
    expect(transcript.entries.filter((entry) => entry.kind === 'notice')).toEqual([
      { kind: 'notice', tone: 'info', text: 'The turn was cancelled.' },
    ]);
  });

  test('a provider error is shown once: done{error} does not repeat the finish notice', () => {
    const transcript = fold([
      { type: 'text_delta', delta: 'Partial' },
      { type: 'finish', reason: 'error', message: '429 rate limited' },
      { type: 'done', reason: 'error', message: '429 rate limited' },
    ]);
    expect(transcript.entries.filter((entry) => entry.kind === 'notice')).toEqual([
      { kind: 'notice', tone: 'error', text: 'Provider error: 429 rate limited' },
    ]);
  });

  test('an earlier turn’s error does not hide this turn’s', () => {
    const transcript = fold([
      { type: 'error', message: 'first failure' },
      { type: 'done', reason: 'error' },
    ]);
    transcript.entries.push({ kind: 'user', text: 'again' });
    applyTurnEvent(transcript, { type: 'done', reason: 'error', message: 'second failure' });
    expect(transcript.entries.filter((entry) => entry.kind === 'notice').map((entry) => entry.text)).toEqual([
      'first failure',
      'The turn ended with an error. second failure',
    ]);
  });

  test('tool_progress attaches to its call; unknown event types are ignored', () => {
    const transcript = fold([
      { type: 'tool_call_started', callId: 'c4', name: 'generate_image' },
      { type: 'tool_progress', callId: 'c4', event: { kind: 'image_done', index: 0 } },
      { type: 'something_new', callId: 'c4' },
    ]);
    expect((transcript.entries[0] as ToolCallEntry).progress).toHaveLength(1);
    expect(transcript.entries).toHaveLength(1);
  });
});

describe('transcriptFromHistory', () => {
  test('stored conversation items rebuild text and tool cards with their results', () => {
    const transcript = transcriptFromHistory([
      { role: 'user', content: { type: 'user_text', text: 'read a.txt' } },
      {
        role: 'assistant',
        content: { type: 'tool_call', callId: 'c1', name: 'read_file', arguments: '{"path":"a.txt"}' },
      },
      {
        role: 'tool',
        content: {
          type: 'tool_result',
          callId: 'c1',
          name: 'read_file',
          ok: true,
          output: '{"content":"1\\thi"}',
        },
      },
      { role: 'assistant', content: JSON.stringify({ type: 'assistant_text', text: 'It says hi.' }) },
    ]);
    expect(transcript.entries).toEqual([
      { kind: 'user', text: 'read a.txt' },
      {
        kind: 'tool',
        callId: 'c1',
        name: 'read_file',
        argumentsText: '{"path":"a.txt"}',
        status: 'succeeded',
        result: { content: '1\thi' },
        error: undefined,
        progress: [],
        step: 'c1',
      },
      { kind: 'assistant', text: 'It says hi.' },
    ]);
  });

  test("the server shape {role, item} with the loop's serialized outputs", () => {
    const transcript = transcriptFromHistory([
      { role: 'user', item: { type: 'user_text', text: 'list' } },
      {
        role: 'assistant',
        item: { type: 'tool_call', callId: 'x', name: 'glob', arguments: '{"pattern":"*"}' },
      },
      {
        role: 'tool',
        item: {
          type: 'tool_result',
          callId: 'x',
          name: 'glob',
          ok: false,
          output: '{"error":{"classification":"permission_denied","message":"outside"}}',
        },
      },
    ]);
    expect(transcript.entries[1]).toMatchObject({
      status: 'failed',
      error: { classification: 'permission_denied', message: 'outside' },
    });
  });

  test('a failed stored result shows the error; a call without a result is marked interrupted', () => {
    const transcript = transcriptFromHistory([
      { role: 'assistant', content: { type: 'tool_call', callId: 'a', name: 'bash', arguments: '{}' } },
      {
        role: 'tool',
        content: {
          type: 'tool_result',
          callId: 'a',
          name: 'bash',
          ok: false,
          output: '{"ok":false,"error":{"classification":"cancelled","message":"Cancelled by the user."}}',
        },
      },
      { role: 'assistant', content: { type: 'tool_call', callId: 'b', name: 'glob', arguments: '{}' } },
    ]);
    expect(transcript.entries[0]).toMatchObject({
      status: 'failed',
      error: { classification: 'cancelled', message: 'Cancelled by the user.' },
    });
    expect(transcript.entries[1]).toMatchObject({ status: 'failed', error: { classification: 'cancelled' } });
  });

  test('plain {role, content: string} rows render as text; provider items are skipped', () => {
    const transcript = transcriptFromHistory([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: { type: 'provider_item', provider: 'openai', data: {} } },
      { role: 'assistant', content: 'hi' },
    ]);
    expect(transcript.entries).toEqual([
      { kind: 'user', text: 'hello' },
      { kind: 'assistant', text: 'hi' },
    ]);
  });
});
