/**
 * What the files panel's preview shows of a file, decided from the type the server sent (an image type
 * only for a PNG, JPEG, GIF or WebP recognised by its bytes) and the first bytes read: an image, text
 * (valid UTF-8 without NUL bytes, shown as text and never as HTML), or a note that the file is neither.
 * Reads are bounded, so a large file costs at most the bound. Free of the DOM, so it is unit-tested.
 */

/** Bytes of a text file the preview reads; the rest is left for a download. */
export const TEXT_PREVIEW_BYTES = 256 * 1024;
/** The largest image the preview loads. */
export const IMAGE_PREVIEW_BYTES = 16 * 1024 * 1024;

/** The first bytes of a file as the download route sent them. */
export interface FileStart {
  contentType: string;
  bytes: Uint8Array<ArrayBuffer>;
  /** True when the file has more bytes than were read. */
  cut: boolean;
}

export type PreviewContent =
  | { kind: 'image'; type: string; bytes: Uint8Array<ArrayBuffer> }
  | { kind: 'text'; text: string; cut: boolean }
  | { kind: 'image_too_large' }
  | { kind: 'binary' };

export function isImageType(contentType: string): boolean {
  return /^image\/(png|jpeg|gif|webp)$/.test(contentType.split(';')[0]!.trim());
}

/** How many bytes to read of a file the server sends as `contentType`. */
export function previewLimit(contentType: string): number {
  return isImageType(contentType) ? IMAGE_PREVIEW_BYTES : TEXT_PREVIEW_BYTES;
}

export function previewContent(start: FileStart): PreviewContent {
  if (isImageType(start.contentType)) {
    return start.cut
      ? { kind: 'image_too_large' }
      : { kind: 'image', type: start.contentType.split(';')[0]!.trim(), bytes: start.bytes };
  }
  if (start.bytes.includes(0)) return { kind: 'binary' };
  try {
    // A cut may fall inside a character: `stream` holds that tail back instead of failing on it.
    const text = new TextDecoder('utf-8', { fatal: true }).decode(start.bytes, { stream: start.cut });
    return { kind: 'text', text, cut: start.cut };
  } catch {
    return { kind: 'binary' };
  }
}

/** Reads at most `limit` bytes of a response body and cancels the rest. */
export async function readAtMost(
  response: Response,
  limit: number,
): Promise<{ bytes: Uint8Array<ArrayBuffer>; cut: boolean }> {
  const reader = response.body?.getReader();
  const bytes = new Uint8Array(limit);
  let length = 0;
  let cut = false;
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = limit - length;
    bytes.set(value.subarray(0, room), length);
    length += Math.min(room, value.byteLength);
    if (value.byteLength > room) {
      cut = true;
      await reader.cancel().catch(() => {});
      break;
    }
  }
  return { bytes: bytes.slice(0, length), cut };
}
