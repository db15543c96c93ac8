/**
 * Header values of users' own MCP servers at rest: AES-256-GCM under a key derived from the operator's
 * `MANGO_SECRET_KEY` (SHA-256 of it), a fresh 12-byte nonce per value, stored as
 * `v1:<nonce>:<tag>:<ciphertext>` in base64. A value encrypted under another key, or altered, fails to
 * open with an error that says so; it is never returned as garbage.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const PREFIX = 'v1';

export class HeaderCipher {
  readonly #key: Buffer;

  constructor(secretKey: string) {
    this.#key = createHash('sha256').update(secretKey, 'utf8').digest();
  }

  seal(headers: Readonly<Record<string, string>>): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, nonce);
    const sealed = Buffer.concat([cipher.update(JSON.stringify(headers), 'utf8'), cipher.final()]);
    return [
      PREFIX,
      nonce.toString('base64'),
      cipher.getAuthTag().toString('base64'),
      sealed.toString('base64'),
    ].join(':');
  }

  /** @throws Error when the text was sealed under another key, altered, or is not sealed text. */
  open(text: string): Record<string, string> {
    const [prefix, nonce, tag, sealed] = text.split(':');
    if (prefix !== PREFIX || nonce === undefined || tag === undefined || sealed === undefined) {
      throw new Error('the stored headers are not in the sealed format.');
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(nonce, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      const plain = Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as Record<string, string>;
    } catch {
      throw new Error(
        'the stored headers cannot be decrypted: MANGO_SECRET_KEY is not the key they were stored with.',
      );
    }
  }
}
