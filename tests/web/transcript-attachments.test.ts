import { describe, expect, test } from 'bun:test';
import type { ChatMessage } from '../../web/api-client.ts';
import { transcriptFromHistory } from '../../web/transcript-from-history.ts';

const user = (seq: number, item: Record<string, unknown>): ChatMessage => ({
  id: `m${seq}`,
  seq,
  role: 'user',
  item: { type: 'user_text', ...item },
});

describe('a stored message’s attachments on reload', () => {
  test('their paths come back with the message; none, or a malformed list, gives none', () => {
    const transcript = transcriptFromHistory(
      [
        user(1, { text: 'Look', attachments: [{ path: '/w/a.txt' }, { path: '/w/b.png' }] }),
        user(2, { text: 'Plain' }),
        user(3, { text: 'Odd', attachments: [{ path: 7 }, 'x', null] }),
      ],
      [],
    );
    expect(transcript.entries).toEqual([
      { kind: 'user', text: 'Look', attachments: ['/w/a.txt', '/w/b.png'] },
      { kind: 'user', text: 'Plain' },
      { kind: 'user', text: 'Odd' },
    ]);
  });
});
