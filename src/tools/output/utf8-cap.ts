/**
 * Caps at a budget without splitting a character: a byte cap keeps the longest prefix of whole UTF-8
 * characters (a character the cap would split is dropped, never decoded into U+FFFD), and a character
 * cap never splits a UTF-16 surrogate pair. Pure and allocation-light; every cap on text in Mango (shell
 * streams, lines, the result budget) cuts through these.
 */

/** How many bytes a UTF-8 sequence starting with `leadByte` spans (1 for an invalid lead). */
function sequenceLength(leadByte: number): number {
  if (leadByte < 0x80) return 1;
  if ((leadByte & 0xe0) === 0xc0) return 2;
  if ((leadByte & 0xf0) === 0xe0) return 3;
  if ((leadByte & 0xf8) === 0xf0) return 4;
  return 1;
}

function isContinuationByte(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/**
 * The length of the longest prefix of `bytes` that does not end inside a multi-byte character. Looks at
 * most four bytes back, so it is O(1). Invalid bytes are left for the decoder to replace.
 */
export function completeUtf8PrefixLength(bytes: Uint8Array): number {
  const end = bytes.length;
  for (let index = end - 1; index >= 0 && index >= end - 4; index -= 1) {
    const byte = bytes[index] as number;
    if (isContinuationByte(byte)) continue;
    return index + sequenceLength(byte) > end ? index : end;
  }
  return end;
}

export interface Utf8Cap {
  /** The kept text: whole characters only. */
  text: string;
  /** UTF-8 bytes of `text`. */
  keptBytes: number;
  /** UTF-8 bytes of the whole input. */
  totalBytes: number;
  cut: boolean;
}

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/** `text` when it fits `maxBytes` of UTF-8, otherwise its longest whole-character prefix that does. */
export function capUtf8Bytes(text: string, maxBytes: number): Utf8Cap {
  const totalBytes = Buffer.byteLength(text, 'utf8');
  if (totalBytes <= maxBytes) return { text, keptBytes: totalBytes, totalBytes, cut: false };
  const bytes = Buffer.from(text, 'utf8');
  const kept = completeUtf8PrefixLength(bytes.subarray(0, Math.max(0, maxBytes)));
  return { text: decoder.decode(bytes.subarray(0, kept)), keptBytes: kept, totalBytes, cut: true };
}

/** The first `maxCharacters` UTF-16 code units of `text`, one fewer when the cut would split a pair. */
export function capCharacters(text: string, maxCharacters: number): { text: string; cut: boolean } {
  if (text.length <= maxCharacters) return { text, cut: false };
  let end = Math.max(0, maxCharacters);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), cut: true };
}
