import { describe, expect, test } from 'bun:test';
import {
  IMAGE_PREVIEW_BYTES,
  previewContent,
  previewLimit,
  readAtMost,
  TEXT_PREVIEW_BYTES,
} from '../../web/file-preview-content.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('previewContent', () => {
  test('an image type the server sent is an image; cut short it is too large to preview', () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47]);
    expect(previewContent({ contentType: 'image/png', bytes: png, cut: false })).toEqual({
      kind: 'image',
      type: 'image/png',
      bytes: png,
    });
    expect(previewContent({ contentType: 'image/webp', bytes: png, cut: true })).toEqual({
      kind: 'image_too_large',
    });
  });

  test('markup is text, shown as it is; SVG (sent as octet-stream) too', () => {
    const markup = '<img src=x onerror="alert(1)"><svg><script>alert(2)</script></svg>';
    expect(
      previewContent({ contentType: 'application/octet-stream', bytes: bytes(markup), cut: false }),
    ).toEqual({ kind: 'text', text: markup, cut: false });
  });

  test('a cut inside a character is held back, not a failure; NUL bytes or bad UTF-8 are binary', () => {
    const euro = bytes('price: €'); // € is three bytes
    expect(
      previewContent({ contentType: 'application/octet-stream', bytes: euro.slice(0, -1), cut: true }),
    ).toEqual({ kind: 'text', text: 'price: ', cut: true });
    expect(
      previewContent({ contentType: 'application/octet-stream', bytes: euro.slice(0, -1), cut: false }),
    ).toEqual({ kind: 'binary' });
    expect(
      previewContent({
        contentType: 'application/octet-stream',
        bytes: Uint8Array.from([0x61, 0, 0x62]),
        cut: false,
      }),
    ).toEqual({ kind: 'binary' });
    expect(
      previewContent({ contentType: 'application/octet-stream', bytes: new Uint8Array(0), cut: false }),
    ).toEqual({ kind: 'text', text: '', cut: false });
  });

  test('the read is bounded by type', () => {
    expect(previewLimit('image/gif')).toBe(IMAGE_PREVIEW_BYTES);
    expect(previewLimit('image/svg+xml')).toBe(TEXT_PREVIEW_BYTES);
    expect(previewLimit('application/octet-stream')).toBe(TEXT_PREVIEW_BYTES);
  });
});

describe('readAtMost', () => {
  test('reads up to the limit across chunks, says whether more was there, and stops reading', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(bytes('abcd'));
        if (pulled === 100) controller.close();
      },
    });
    expect(await readAtMost(new Response(body), 10)).toEqual({ bytes: bytes('abcdabcdab'), cut: true });
    expect(pulled).toBeLessThan(10);
    expect(await readAtMost(new Response('abc'), 3)).toEqual({ bytes: bytes('abc'), cut: false });
    expect(await readAtMost(new Response(''), 3)).toEqual({ bytes: new Uint8Array(0), cut: false });
  });
});
