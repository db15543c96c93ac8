/**
 * The transcript's side of reruns, without a browser: which action the end of the transcript offers,
 * what a rerun takes out, and which stored message an entry shows (refused when the lists differ).
 */
import { describe, expect, test } from 'bun:test';
import { emptyTranscript } from '../../web/transcript.ts';
import type { TranscriptEntry } from '../../web/transcript-entries.ts';
import {
  lastUserEntry,
  replaceFrom,
  replacesToolCalls,
  rerunAction,
  storedMessageId,
} from '../../web/transcript-reruns.ts';

function chatOf(...entries: TranscriptEntry[]) {
  const transcript = emptyTranscript();
  transcript.entries.push(...entries);
  return transcript;
}

const tool: TranscriptEntry = {
  kind: 'tool',
  callId: 'c1',
  name: 'bash',
  argumentsText: '{}',
  status: 'succeeded',
  progress: [],
  step: 'c1',
};

describe('transcript reruns', () => {
  test('the end of the transcript offers Regenerate, Retry after a failure, nothing while running or empty', () => {
    expect(rerunAction(emptyTranscript())).toBeUndefined();
    const transcript = chatOf({ kind: 'user', text: 'Q' }, { kind: 'assistant', text: 'A' });
    expect(rerunAction(transcript)).toBe('regenerate');
    for (const reason of ['error', 'failed', 'lost']) {
      transcript.doneReason = reason;
      expect(rerunAction(transcript)).toBe('retry');
    }
    transcript.doneReason = 'cancelled';
    expect(rerunAction(transcript)).toBe('regenerate');
    transcript.running = true;
    expect(rerunAction(transcript)).toBeUndefined();
  });

  test('a rerun takes out its message (or keeps it) and everything after; tool calls are seen', () => {
    const first: TranscriptEntry & { kind: 'user' } = { kind: 'user', text: 'Q1' };
    const second: TranscriptEntry & { kind: 'user' } = { kind: 'user', text: 'Q2' };
    const transcript = chatOf(first, { kind: 'assistant', text: 'A1' }, second, tool, {
      kind: 'assistant',
      text: 'A2',
    });
    expect(lastUserEntry(transcript)).toBe(second);
    const replaced = replaceFrom(transcript, second, true);
    expect(replaced.map((entry) => entry.kind)).toEqual(['tool', 'assistant']);
    expect(replacesToolCalls(replaced)).toBe(true);
    expect(transcript.entries).toEqual([first, { kind: 'assistant', text: 'A1' }, second]);
    expect(replaceFrom(transcript, first, false).map((entry) => entry.kind)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
    expect(transcript.entries).toEqual([]);
    expect(replacesToolCalls([{ kind: 'assistant', text: 'x' }])).toBe(false);
  });

  test("an entry's stored message is found by position and text, and refused when the chat changed", () => {
    const first: TranscriptEntry & { kind: 'user' } = { kind: 'user', text: 'Q1' };
    const second: TranscriptEntry & { kind: 'user' } = { kind: 'user', text: 'Q2' };
    const transcript = chatOf(first, { kind: 'assistant', text: 'A1' }, second);
    const messages = [
      { id: 'm1', role: 'user', item: { type: 'user_text', text: 'Q1' } },
      { id: 'm2', role: 'assistant', item: { type: 'assistant_text', text: 'A1' } },
      { id: 'm3', role: 'user', item: { type: 'user_text', text: 'Q2' } },
    ];
    expect(storedMessageId(transcript, first, messages)).toBe('m1');
    expect(storedMessageId(transcript, second, messages)).toBe('m3');
    // Another tab edited the second message meanwhile: not this page's message any more.
    const edited = [
      ...messages.slice(0, 2),
      { id: 'm4', role: 'user', item: { type: 'user_text', text: 'Q2 edited' } },
    ];
    expect(storedMessageId(transcript, second, edited)).toBeUndefined();
    expect(storedMessageId(transcript, first, messages.slice(0, 2))).toBeUndefined();
  });
});
