/**
 * Header values of users' own MCP servers at rest: AES-256-GCM under a key derived from the operator's
 * `MANGO_SECRET_KEY` (SHA-256 of it), a fresh 12-byte nonce per value, stored as
 * `v1:<nonce>:<tag>:<ciphertext>` in base64. A value encrypted under another key, or altered, fails to
 * open with an error that says so; it is never returned as garbage.
 *
 * While a key is rotated, `MANGO_SECRET_KEY_PREVIOUS` opens what the old key sealed; everything is
 * sealed under the current key only (`secret-key-probe.ts` re-seals the old values at start).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const PREFIX = 'v1';

/** Which of the two keys opened a value. */
export type OpeningKey = 'current' | 'previous';

function deriveKey(secretKey: string): Buffer {
  return createHash('sha256').update(secretKey, 'utf8').digest();
}

/** The plain text of `text` under `key`, or undefined when that key did not seal it (or it was altered). */
function openUnder(key: Buffer, nonce: string, tag: string, sealed: string): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

export class HeaderCipher {
  readonly #key: Buffer;
  readonly #previous: Buffer | undefined;

  constructor(secretKey: string, previousKey?: string) {
    this.#key = deriveKey(secretKey);
    this.#previous = previousKey === undefined ? undefined : deriveKey(previousKey);
  }

  seal(headers: Readonly<Record<string, string>>): string {
    return this.sealText(JSON.stringify(headers));
  }

  /** @throws Error when the text was sealed under another key, altered, or is not sealed text. */
  open(text: string): Record<string, string> {
    return JSON.parse(this.openText(text).text) as Record<string, string>;
  }

  sealText(plain: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce);
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [
      PREFIX,
      nonce.toString('base64'),
      cipher.getAuthTag().toString('base64'),
      sealed.toString('base64'),
    ].join(':');
  }

  /**
   * The plain text, and which key opened it.
   * @throws Error when neither key sealed it, it was altered, or it is not sealed text.
   */
  openText(text: string): { text: string; key: OpeningKey } {
    const [prefix, nonce, tag, sealed] = text.split(':');
    if (prefix !== PREFIX || nonce === undefined || tag === undefined || sealed === undefined) {
      throw new Error('the stored headers are not in the sealed format.');
    }
    const current = openUnder(this.#key, nonce, tag, sealed);
    if (current !== undefined) return { text: current, key: 'current' };
    const previous = this.#previous && openUnder(this.#previous, nonce, tag, sealed);
    if (previous !== undefined) return { text: previous, key: 'previous' };
    throw new Error(
      this.#previous === undefined
        ? 'the stored headers cannot be decrypted: MANGO_SECRET_KEY is not the key they were stored with.'
        : 'the stored headers cannot be decrypted: neither MANGO_SECRET_KEY nor MANGO_SECRET_KEY_PREVIOUS is the key they were stored with.',
    );
  }
}
