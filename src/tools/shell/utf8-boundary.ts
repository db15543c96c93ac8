/**
 * UTF-8 at a byte cap: output is decoded without splitting a multi-byte character at the cap. A capped stream keeps its first N bytes; when byte N falls inside a character, the partial
 * character is dropped rather than decoded into U+FFFD.
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
 * The length of the longest prefix of `bytes` that does not end inside a multi-byte character. Pure;
 * looks at most four bytes back, so it is O(1). Invalid bytes are left for the decoder to replace.
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

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * Decodes captured output. When the stream was cut at the cap (`cutAtCap`), a character the cut split is
 * dropped; otherwise the bytes are decoded as they are (invalid sequences become U+FFFD).
 */
export function decodeCapturedOutput(bytes: Uint8Array, cutAtCap: boolean): string {
  const length = cutAtCap ? completeUtf8PrefixLength(bytes) : bytes.length;
  return decoder.decode(bytes.subarray(0, length));
}
