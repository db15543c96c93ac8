/**
 * API tokens: 256 random bits, shown once, stored only as their sha256 hash. Looking a token up by its
 * hash leaks nothing useful through timing (an attacker learns about hashes of guesses, not about the
 * secret), and the final comparison of the stored and computed hashes is constant-time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Prefix that makes a leaked token recognisable (secret scanners, logs). */
export const API_TOKEN_PREFIX = 'mango_';

/** A fresh token: the prefix and 32 random bytes in base64url (256 bits). */
export function generateApiToken(): string {
  return `${API_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** Hex sha256 of a token: the only form in which a token is stored. */
export function hashApiToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex hashes of equal length. */
export function tokenHashesEqual(left: string, right: string): boolean {
  const leftBytes = Buffer.from(left, 'utf8');
  const rightBytes = Buffer.from(right, 'utf8');
  return leftBytes.length === rightBytes.length && timingSafeEqual(leftBytes, rightBytes);
}

/**
 * The token of an `Authorization: Bearer <token>` header (RFC 6750 §2.1; the scheme is
 * case-insensitive), or undefined when the header is absent or of another scheme.
 */
export function readBearerToken(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)[ ]*$/i.exec(header);
  return match?.[1];
}
