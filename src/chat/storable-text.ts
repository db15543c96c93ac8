/**
 * Chat input the databases can store as sent, and the one error for chat input that is not: a
 * request-level `invalid_request` the HTTP layer answers with a 422.
 */
import { ChatError } from './chat-errors.ts';

/** A chat request field that is invalid, as the chat API reports it. */
export function invalid(message: string): ChatError {
  return new ChatError('invalid_request', message);
}

/**
 * True for text every database stores as sent: well-formed UTF-16 (no lone surrogate, which UTF-8
 * cannot encode) and no NUL (PostgreSQL `text` refuses it). Chat fields and ids are checked with it so
 * such input is a 4xx, not a driver error.
 */
export function isStorableText(value: string): boolean {
  return value.isWellFormed() && !value.includes('\u0000');
}

export function requireStorable(field: string, value: string | null): void {
  if (value !== null && !isStorableText(value)) {
    throw invalid(`${field} must be valid Unicode text without NUL characters.`);
  }
}
