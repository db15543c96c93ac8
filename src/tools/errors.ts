/**
 * One error base for the tools layer. Every failure a model or a caller can act on carries a stable
 * `classification`; `executeTool` turns these into `{ok: false, error}` envelopes and only `src/http/`
 * maps classifications to HTTP statuses.
 */
import type { ToolErrorClassification } from '../contracts/tool-error-classification.ts';
import { MangoError } from '../errors/mango-error.ts';

const TOOL_ERROR_MARKER = Symbol.for('mango.tools.error');

/** Base class of every classified tool failure. */
export class ToolError extends MangoError {
  readonly [TOOL_ERROR_MARKER] = true;
  readonly classification: ToolErrorClassification;

  constructor(classification: ToolErrorClassification, message: string, options?: ErrorOptions) {
    super(classification, message, options);
    this.name = 'ToolError';
    this.classification = classification;
  }

  /** Works across module copies (e.g. a tool bundled separately), unlike `instanceof`. */
  static isInstance(value: unknown): value is ToolError {
    return typeof value === 'object' && value !== null && TOOL_ERROR_MARKER in value;
  }
}

/** A model-supplied argument is present but wrong (type, range, shape). Never replaced by a default. */
export class ToolArgumentError extends ToolError {
  constructor(message: string, options?: ErrorOptions) {
    super('validation_failed', message, options);
    this.name = 'ToolArgumentError';
  }
}

/** Path policy or the operating system refused access. */
export class ToolPermissionError extends ToolError {
  constructor(message: string, options?: ErrorOptions) {
    super('permission_denied', message, options);
    this.name = 'ToolPermissionError';
  }
}

/** The named file or resource does not exist. */
export class ToolNotFoundError extends ToolError {
  constructor(message: string, options?: ErrorOptions) {
    super('not_found', message, options);
    this.name = 'ToolNotFoundError';
  }
}

/** The tool ran but failed for a reason that is neither the model's input nor policy. */
export class ToolExecutionError extends ToolError {
  constructor(message: string, options?: ErrorOptions) {
    super('execution_error', message, options);
    this.name = 'ToolExecutionError';
  }
}

/** The call's execution budget ran out. */
export class ToolTimeoutError extends ToolError {
  constructor(message: string, options?: ErrorOptions) {
    super('timeout', message, options);
    this.name = 'ToolTimeoutError';
  }
}

/** The caller aborted the call. */
export class ToolCancelledError extends ToolError {
  constructor(message: string, options?: ErrorOptions) {
    super('cancelled', message, options);
    this.name = 'ToolCancelledError';
  }
}

/**
 * A write needs more space than is left: the workspace's disk quota (its ext4 image is full, or over
 * the quota) or the filesystem it lies on. The message gives the used figure and the limit.
 */
export class ToolQuotaExceededError extends ToolError {
  constructor(message: string, options?: ErrorOptions) {
    super('quota_exceeded', message, options);
    this.name = 'ToolQuotaExceededError';
  }
}

/** Why a settings value was refused; the HTTP layer returns it as `{error, code}` with status 422. */
export type ToolParameterErrorCode =
  | 'unknown_parameter'
  | 'invalid_type'
  | 'out_of_range'
  | 'not_allowed_value'
  | 'missing_required'
  | 'cannot_disable'
  | 'tool_unavailable';

/**
 * A tool *setting* (not a model argument) is invalid. Thrown by the settings resolver; the API turns it
 * into a 422 and execution falls back to defaults (`getSafeEffectiveToolSettings`).
 */
export class ToolParameterError extends MangoError {
  override readonly code: ToolParameterErrorCode;
  readonly toolName: string;
  readonly parameter: string | undefined;

  constructor(
    toolName: string,
    parameter: string | undefined,
    code: ToolParameterErrorCode,
    message: string,
  ) {
    super(code, message);
    this.name = 'ToolParameterError';
    this.toolName = toolName;
    this.parameter = parameter;
    this.code = code;
  }
}

/** Maps a Node/Bun system error code to the classification a model can act on. */
export function classifySystemError(error: unknown): ToolErrorClassification {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  switch (code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return 'not_found';
    case 'EACCES':
    case 'EPERM':
      return 'permission_denied';
    default:
      return 'execution_error';
  }
}
