/**
 * The one place that turns failures into HTTP statuses, so a status means the same on every route. Every
 * error response is JSON `{error, code}`: `error` a sentence for people, `code` a stable string for
 * programs. Bad input is always a 4xx; only a fault of the server itself is a 500, and its details go to
 * the log, not the client.
 *
 * | failure                                            | status | code                    |
 * | -------------------------------------------------- | ------ | ----------------------- |
 * | body is not JSON                                   | 400    | `malformed_json`        |
 * | body/params/query do not match the route's schema  | 400    | `invalid_request`       |
 * | missing or unknown bearer token                    | 401    | `unauthorized`          |
 * | no such route / `unknown_tool` / `not_found`       | 404    | `not_found` / the class |
 * | body larger than the limit                         | 413    | `payload_too_large`     |
 * | `ToolParameterError` (setting invalid, cannot_disable) | 422 | its `code`            |
 * | `validation_failed`                                | 422    | `validation_failed`     |
 * | `permission_denied`                                | 403    | `permission_denied`     |
 * | `denied` (the user refused the call)               | 403    | `denied`                |
 * | `tool_disabled`                                    | 409    | `tool_disabled`         |
 * | `timeout`                                          | 504    | `timeout`               |
 * | `cancelled`                                        | 499    | `cancelled`             |
 * | `quota_exceeded` (the workspace or its disk is full) | 507  | `quota_exceeded`        |
 * | `ChatError` not_found / busy, approval_closed, nothing_to_rerun | 404 / 409 | its `code` |
 * | `ChatError` invalid_request / invalid_working_directory | 422 | its `code`           |
 * | `ChatError` too_many_turns                        | 429 + `Retry-After` | `too_many_turns` |
 * | `ChatError` provider_unavailable / turn_not_started | 503   | its `code`              |
 * | `ModelListError` provider_unavailable / model_list_failed | 503 / 502 | its `code` |
 * | `WorkspaceError` (a path the caller may not use)   | 422    | `invalid_working_directory` |
 * | `McpServerError` not_found / name_taken, operator_server / invalid_request | 404 / 409 / 422 | its `code` |
 * | database unreachable (`isDatabaseUnavailableError`) | 503 + `Retry-After` | `database_unavailable` |
 * | anything else                                      | 500    | `internal_error`        |
 */
import { ChatError, type ChatErrorCode } from '../chat/chat-errors.ts';
import type { ToolErrorClassification } from '../contracts/tool-error-classification.ts';
import { MangoError } from '../errors/mango-error.ts';
import { McpServerError, type McpServerErrorCode } from '../mcp-client/user-mcp-server-service.ts';
import { ModelListError } from '../providers/model-lister.ts';
import { ToolError, ToolParameterError } from '../tools/errors.ts';
import { WorkspaceError } from '../workspaces/workspace-error.ts';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailableError } from './database-outage.ts';

/** An error that already knows its HTTP status and code (thrown by the HTTP layer itself). */
export class HttpError extends MangoError {
  readonly status: number;
  override readonly code: string;
  /** Headers the response must carry (e.g. `WWW-Authenticate` on a 401, `Retry-After` on a 503). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(code, message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** The JSON body of every error response. */
export interface ErrorBody {
  error: string;
  code: string;
  /** For a `ToolParameterError`: the setting at fault (`enabled` for cannot_disable). */
  parameter?: string;
}

const CLASSIFICATION_STATUS: Record<ToolErrorClassification, number> = {
  unknown_tool: 404,
  not_found: 404,
  tool_disabled: 409,
  validation_failed: 422,
  permission_denied: 403,
  timeout: 504,
  cancelled: 499,
  denied: 403,
  // Insufficient Storage: the request was fine, the space to keep it is not there; retrying after
  // files were removed succeeds, which a 413 (the body is too large, whatever the space) would not say.
  quota_exceeded: 507,
  execution_error: 500,
};

const CHAT_ERROR_STATUS: Record<ChatErrorCode, number> = {
  not_found: 404,
  busy: 409,
  invalid_request: 422,
  invalid_working_directory: 422,
  provider_unavailable: 503,
  approval_closed: 409,
  nothing_to_rerun: 409,
  turn_not_started: 503,
  too_many_turns: 429,
  invalid_attachment: 422,
};

const MCP_SERVER_ERROR_STATUS: Record<McpServerErrorCode, number> = {
  not_found: 404,
  name_taken: 409,
  operator_server: 409,
  invalid_request: 422,
};

/** The HTTP status for a tool error classification. */
export function statusForClassification(classification: ToolErrorClassification): number {
  return CLASSIFICATION_STATUS[classification];
}

export function jsonErrorResponse(
  status: number,
  body: ErrorBody,
  headers: Readonly<Record<string, string>> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
  });
}

/** Elysia's name for the stage that failed, e.g. `VALIDATION`, `PARSE`, `NOT_FOUND`. */
export type FrameworkErrorCode = string | number;

interface ValidationIssue {
  path?: string;
  message?: string;
  schema?: unknown;
  value?: unknown;
}

/** The values a union of literals allows (`t.Union([t.Literal('a'), …])`), else undefined. */
function allowedLiterals(schema: unknown): unknown[] | undefined {
  const anyOf = (schema as { anyOf?: unknown })?.anyOf;
  if (!Array.isArray(anyOf) || anyOf.length === 0) return undefined;
  const values = anyOf.map((member) => (member as { const?: unknown })?.const);
  return values.every((value) => value !== undefined) ? values : undefined;
}

/** The types a union of plain types allows (`t.Union([t.String(), t.Null()])`), e.g. "string or null". */
function allowedTypes(schema: unknown): string | undefined {
  const anyOf = (schema as { anyOf?: unknown })?.anyOf;
  if (!Array.isArray(anyOf) || anyOf.length === 0) return undefined;
  const types = anyOf.map((member) => (member as { type?: unknown })?.type);
  return types.every((type) => typeof type === 'string') ? types.join(' or ') : undefined;
}

function describeReceived(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** "what, expected, got" for the first issue the route's schema found. */
function describeValidation(error: unknown): string {
  const detail = error as { type?: string; all?: ValidationIssue[]; message?: string };
  const first = detail.all?.[0];
  const where = detail.type ? `request ${detail.type}` : 'request';
  if (!first) return `Invalid ${where}.`;
  const at = first.path || '(root)';
  const literals = allowedLiterals(first.schema);
  if (literals && first.value !== undefined) {
    const allowed = literals.map((value) => JSON.stringify(value)).join(', ');
    return `Invalid ${where}: ${at} must be one of ${allowed}, got ${describeReceived(first.value)}.`;
  }
  // TypeBox says "Expected union value" for a value no member takes, which names no type to send.
  const types = first.message === 'Expected union value' ? allowedTypes(first.schema) : undefined;
  const message = types === undefined ? (first.message ?? 'is invalid') : `Expected ${types}`;
  const received =
    message.startsWith('Expected') && !message.startsWith('Expected required') && first.value !== undefined
      ? `, got ${describeReceived(first.value)}`
      : '';
  return `Invalid ${where}: ${at} ${message}${received}.`;
}

/** Told of every request that failed because the database is unreachable (it logs once per outage). */
export interface DatabaseOutageListener {
  reportFailure(error: unknown): void;
}

/**
 * Maps any thrown value to a status and JSON body. `frameworkCode` is Elysia's lifecycle code; `log`
 * receives faults of the server (5xx) with their stack, except an unreachable database, which goes to
 * `outage` (one line per outage, not one per request).
 */
export function mapErrorToResponse(
  error: unknown,
  frameworkCode: FrameworkErrorCode,
  log: (message: string) => void,
  outage?: DatabaseOutageListener,
): Response {
  const unavailable = [error, (error as { cause?: unknown })?.cause].find(isDatabaseUnavailableError);
  if (unavailable !== undefined) {
    outage?.reportFailure(unavailable);
    return jsonErrorResponse(
      503,
      { error: 'The database cannot be reached; retry shortly.', code: 'database_unavailable' },
      { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
    );
  }
  // Elysia wraps whatever a body parser throws in its ParseError; ours throws HttpErrors.
  const cause = (error as { cause?: unknown })?.cause;
  if (frameworkCode === 'PARSE' && cause instanceof HttpError)
    return mapErrorToResponse(cause, 'HTTP', log, outage);
  if (error instanceof HttpError) {
    return jsonErrorResponse(error.status, { error: error.message, code: error.code }, error.headers);
  }
  if (error instanceof ToolParameterError) {
    return jsonErrorResponse(422, {
      error: error.message,
      code: error.code,
      ...(error.parameter === undefined ? {} : { parameter: error.parameter }),
    });
  }
  if (ChatError.isInstance(error)) {
    const retry = error.retryAfterSeconds;
    return jsonErrorResponse(
      CHAT_ERROR_STATUS[error.code],
      { error: error.message, code: error.code },
      retry === undefined ? {} : { 'retry-after': String(retry) },
    );
  }
  if (ModelListError.isInstance(error)) {
    const status = error.code === 'provider_unavailable' ? 503 : 502;
    return jsonErrorResponse(status, { error: error.message, code: error.code });
  }
  if (error instanceof McpServerError) {
    return jsonErrorResponse(MCP_SERVER_ERROR_STATUS[error.code], { error: error.message, code: error.code });
  }
  if (WorkspaceError.isInstance(error)) {
    return jsonErrorResponse(422, { error: error.message, code: 'invalid_working_directory' });
  }
  if (ToolError.isInstance(error)) {
    const status = statusForClassification(error.classification);
    // A full workspace is the user's to clear, not a fault of the server to log.
    if (status >= 500 && error.classification !== 'quota_exceeded') {
      log(`[mango] ${error.classification}: ${error.stack ?? error.message}`);
    }
    return jsonErrorResponse(status, { error: error.message, code: error.classification });
  }
  switch (frameworkCode) {
    case 'PARSE':
      return jsonErrorResponse(400, { error: 'The request body is not valid JSON.', code: 'malformed_json' });
    case 'VALIDATION': {
      // A response that fails its own schema is our bug, not the client's.
      if ((error as { type?: string }).type === 'response') break;
      return jsonErrorResponse(400, { error: describeValidation(error), code: 'invalid_request' });
    }
    case 'NOT_FOUND':
      return jsonErrorResponse(404, { error: 'No such route.', code: 'not_found' });
    case 'INVALID_COOKIE_SIGNATURE':
    case 'INVALID_FILE_TYPE':
      return jsonErrorResponse(400, { error: 'Invalid request.', code: 'invalid_request' });
  }
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return jsonErrorResponse(status, { error: 'Invalid request.', code: 'invalid_request' });
  }
  log(`[mango] internal error: ${(error as Error)?.stack ?? String(error)}`);
  return jsonErrorResponse(500, { error: 'Internal server error.', code: 'internal_error' });
}
