import { expect, test } from 'bun:test';
import { imagesShownByCalls } from '../../web/answer-images.ts';
import type { ToolCallEntry, TranscriptEntry } from '../../web/transcript.ts';

const call = (callId: string, fields: Partial<ToolCallEntry>): ToolCallEntry => ({
  kind: 'tool',
  callId,
  name: 'generate_image',
  argumentsText: '{}',
  status: 'running',
  progress: [],
  step: callId,
  ...fields,
});

test("the images the calls show: a finished call's result, a running call's announced images", () => {
  const entries: TranscriptEntry[] = [
    { kind: 'user', text: 'Draw' },
    call('done', {
      status: 'succeeded',
      result: { count: 1, images: [{ id: 'i1', url: '/api/images/i1' }] },
      // A finished call is shown by its result; its progress is not looked at again.
      progress: [{ type: 'tool_progress', progress: { type: 'image_completed', url: '/api/images/old' } }],
    }),
    call('running', {
      progress: [
        { type: 'tool_progress', progress: { type: 'image_generation_started', total: 2 } },
        { type: 'tool_progress', progress: { type: 'image_completed', url: '/api/images/i2' } },
      ],
    }),
    // Never another host: such a URL is not an image a card shows.
    call('elsewhere', { status: 'succeeded', result: { url: 'https://cdn.example/i3.png' } }),
    { kind: 'assistant', text: '![x](/api/images/i1)' },
  ];
  expect([...imagesShownByCalls(entries)]).toEqual(['/api/images/i1', '/api/images/i2']);
});
