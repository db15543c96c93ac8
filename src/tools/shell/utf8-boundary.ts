/**
 * UTF-8 at a byte cap: captured output is decoded without splitting a multi-byte character at the cap. A
 * capped stream keeps its first N bytes; when byte N falls inside a character, the partial character is
 * dropped rather than decoded into U+FFFD (the boundary rule is the output module's, utf8-cap.ts).
 */
import { completeUtf8PrefixLength } from '../output/utf8-cap.ts';

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * Decodes captured output. When the stream was cut at the cap (`cutAtCap`), a character the cut split is
 * dropped; otherwise the bytes are decoded as they are (invalid sequences become U+FFFD).
 */
export function decodeCapturedOutput(bytes: Uint8Array, cutAtCap: boolean): string {
  const length = cutAtCap ? completeUtf8PrefixLength(bytes) : bytes.length;
  return decoder.decode(bytes.subarray(0, length));
}
