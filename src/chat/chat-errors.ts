/**
 * Errors of the chat service, each with a stable `code`. Only `src/http/` maps codes to statuses:
 * `not_found` → 404, `busy`, `approval_closed` and `nothing_to_rerun` → 409, `invalid_working_directory`, `invalid_request` and `invalid_attachment` → 422,
 * `too_many_turns` → 429 with `Retry-After`, `provider_unavailable` and `turn_not_started` → 503.
 */
import { MangoError } from '../errors/mango-error.ts';
export type ChatErrorCode =
  /** No such chat, or it belongs to another user (never distinguished, so ids leak nothing). */
  | 'not_found'
  /** The chat already runs a turn; one turn at a time per chat. */
  | 'busy'
  /** The requested working directory does not exist, is not a directory, or lies outside every workspace root. */
  | 'invalid_working_directory'
  /** A field of the request is invalid (provider id, model, message, restricted without a directory…). */
  | 'invalid_request'
  /** The chat's provider is not configured on this server (no API key). */
  | 'provider_unavailable'
  /** The approval question was answered, timed out, or its turn ended or lost its lease. */
  | 'approval_closed'
  /** A regenerate in a chat without a user message, or a retry when the chat's last turn did not fail. */
  | 'nothing_to_rerun'
  /**
   * The turn was claimed but its user message could not be committed under its lease (lost lease,
   * database away past the lease): nothing was acknowledged, the message was not kept; send it again.
   */
  | 'turn_not_started'
  /**
   * The user already runs as many turns as one user may at once (`MANGO_USER_MAX_TURNS`), across chats
   * and instances: nothing was stored; send the message again once one of them ended.
   */
  | 'too_many_turns'
  /**
   * A file attached to a message is not one the chat's tools can read: outside what the chat reaches,
   * missing, a directory or a special file; the message names which attachment and why.
   */
  | 'invalid_attachment';

const CHAT_ERROR_MARKER = Symbol.for('mango.chat.error');

export class ChatError extends MangoError {
  readonly [CHAT_ERROR_MARKER] = true;
  override readonly code: ChatErrorCode;
  /** For a refusal that passes with time (`too_many_turns`): how long to wait before trying again. */
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ChatErrorCode, message: string, options?: ErrorOptions & { retryAfterSeconds?: number }) {
    super(code, message, options);
    this.name = 'ChatError';
    this.code = code;
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }

  /** Works across module copies, unlike `instanceof`. */
  static isInstance(value: unknown): value is ChatError {
    return typeof value === 'object' && value !== null && CHAT_ERROR_MARKER in value;
  }
}
