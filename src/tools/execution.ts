/**
 * `executeTool`: look the tool up, check it is enabled for the user,
 * merge settings safely, validate the arguments against the tool's JSON Schema, and run the executor under its budget.
 *
 * It never throws: every outcome is an envelope `{ok: true, result}` or `{ok: false, error}`. The
 * budget is the tool's `timeoutSeconds` setting when it has one, 30 s otherwise; when it runs out the
 * call's signal fires with a `ToolTimeoutError`, and a parent abort fires it with a
 * `ToolCancelledError` — whichever comes first claims the outcome, so a cancel is never a timeout.
 * With per-user call slots (`user-call-slots.ts`) a call first waits for one; the budget starts once it
 * holds it, so time spent waiting behind the user's other calls is never charged to it.
 */

import type { ToolErrorClassification } from '../contracts/tool-error-classification.ts';
import { errorMessage } from '../errors/error-message.ts';
import { readArgumentsObject } from './arg-parsing.ts';
import { type ArgumentValidator, defaultArgumentValidator } from './argument-validator.ts';
import type { ToolParameterError } from './errors.ts';
import { classifySystemError, ToolCancelledError, ToolError, ToolTimeoutError } from './errors.ts';
import { getInMemoryLedgerForChat } from './freshness-ledger.ts';
import { defaultToolRegistry, type ToolRegistry } from './registry.ts';
import { getSafeEffectiveToolSettings } from './tool-settings-resolver.ts';
import type {
  EffectiveToolSettings,
  RegisteredTool,
  ToolCallContext,
  ToolContext,
  ToolExecutionResult,
} from './types.ts';
import { slotWaitProgress, USER_TOOL_CALL_LIMIT_VARIABLE, type UserCallSlots } from './user-call-slots.ts';

/** Budget for tools without a `timeoutSeconds` setting; a set one must lie within the bounds below. */
export const DEFAULT_TOOL_TIMEOUT_SECONDS = 30;
export const MIN_TOOL_TIMEOUT_SECONDS = 5;
export const MAX_TOOL_TIMEOUT_SECONDS = 600;
/**
 * How long `executeTool` waits, after a call's signal fires, for a tool that
 * `reportsPartialResultOnAbort` to return its partial result before the abort failure wins.
 */
export const ABORT_GRACE_MILLISECONDS = 2000;

/** Timer functions, injectable so tests can fire a budget without waiting for it. */
export interface ToolTimers {
  setTimeout(callback: () => void, milliseconds: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The runtime's own timers: what every budget uses unless a test injects its own. */
export const REAL_TOOL_TIMERS: ToolTimers = {
  setTimeout: (callback, milliseconds) => setTimeout(callback, milliseconds),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface ExecuteToolOptions {
  registry?: ToolRegistry;
  timers?: ToolTimers;
  /** Told about every saved setting that failed validation and fell back to its default. */
  onInvalidSettings?: (error: ToolParameterError) => void;
  /** Checks every call's arguments against the tool's schema; the process-wide one by default. */
  argumentValidator?: ArgumentValidator;
  /**
   * The instance's per-user slots (`MANGO_USER_MAX_TOOL_CALLS`): a call runs only once it holds one of
   * its user's, and its budget starts then. Absent: calls never wait.
   */
  callSlots?: UserCallSlots;
}

/** The execution budget of a tool under its effective settings, in seconds. */
export function getToolBudgetSeconds(
  tool: RegisteredTool,
  parameters: Readonly<Record<string, unknown>>,
): number {
  const hasTimeoutSetting = tool.settings.parameterDescriptors.some(
    (descriptor) => descriptor.name === 'timeoutSeconds',
  );
  const value = parameters.timeoutSeconds;
  if (!hasTimeoutSetting || typeof value !== 'number' || !Number.isFinite(value))
    return DEFAULT_TOOL_TIMEOUT_SECONDS;
  return Math.min(MAX_TOOL_TIMEOUT_SECONDS, Math.max(MIN_TOOL_TIMEOUT_SECONDS, value));
}

function failure(classification: ToolErrorClassification, message: string): ToolExecutionResult {
  return { ok: false, error: { classification, message } };
}

function toFailure(error: unknown): ToolExecutionResult {
  if (ToolError.isInstance(error)) return failure(error.classification, error.message);
  const message = errorMessage(error);
  return failure(classifySystemError(error), message || 'The tool failed without a message.');
}

/** A call that passed every check before running: its tool, effective settings and validated arguments. */
export interface PreparedToolCall {
  tool: RegisteredTool;
  settings: EffectiveToolSettings;
  arguments: Record<string, unknown>;
}

/**
 * Everything `executeTool` checks before a tool runs: the tool exists, the user's settings enable it,
 * and the arguments are an object that passes the tool's JSON Schema. Callers that must decide
 * something about a call before it runs (whether it needs the user's approval) use this, so they never
 * ask about a call that would fail anyway. Never throws.
 */
export function prepareToolCall(
  name: string,
  args: unknown,
  savedSettings?: unknown,
  options: ExecuteToolOptions = {},
): { ok: true; call: PreparedToolCall } | { ok: false; failure: ToolExecutionResult } {
  const registry = options.registry ?? defaultToolRegistry;
  const tool = registry.get(name);
  if (!tool) {
    const available = registry.list().map((item) => item.definition.name);
    return {
      ok: false,
      failure: failure(
        'unknown_tool',
        `No tool named "${name}". Available tools: ${available.join(', ') || 'none'}.`,
      ),
    };
  }

  const settings = getSafeEffectiveToolSettings(
    tool,
    savedSettings,
    options.onInvalidSettings ??
      ((error) =>
        console.warn(`[mango] ignoring invalid saved setting, using its default: ${error.message}`)),
  );
  if (!settings.enabled) {
    return {
      ok: false,
      failure: failure(
        'tool_disabled',
        `Tool "${name}" is disabled in this user's tool settings; it cannot be called until the user enables it.`,
      ),
    };
  }

  let argumentObject: Record<string, unknown>;
  try {
    argumentObject = readArgumentsObject(args);
    argumentObject = (options.argumentValidator ?? defaultArgumentValidator).validate(
      name,
      tool.definition.parameters,
      argumentObject,
    );
  } catch (error) {
    return { ok: false, failure: toFailure(error) };
  }
  return { ok: true, call: { tool, settings, arguments: argumentObject } };
}

/** The context a tool's executor receives for a call with these settings and this signal. */
export function createToolContext(
  context: ToolCallContext,
  settings: EffectiveToolSettings,
  signal: AbortSignal,
): ToolContext {
  return {
    userId: context.userId,
    chatId: context.chatId,
    reachable: context.reachable,
    settings,
    signal,
    ledger: context.ledger ?? getInMemoryLedgerForChat(context.chatId),
    onProgress: context.onProgress ?? (() => {}),
    now: context.now ?? Date.now,
    dataDirectory: context.dataDirectory,
  };
}

/**
 * Runs one tool call. `savedSettings` is the user's stored row for this tool (possibly corrupted:
 * invalid values fall back to defaults). Never throws.
 */
export async function executeTool(
  name: string,
  args: unknown,
  context: ToolCallContext,
  savedSettings?: unknown,
  options: ExecuteToolOptions = {},
): Promise<ToolExecutionResult> {
  const prepared = prepareToolCall(name, args, savedSettings, options);
  if (!prepared.ok) return prepared.failure;
  return runPreparedToolCall(prepared.call, context, options);
}

/**
 * Runs a call `prepareToolCall` accepted, under its budget (the second half of `executeTool`, for a
 * caller that decided something about the call first, so the checks are not made twice). With
 * `callSlots`, the call first waits for one of its user's slots (told to `context.onProgress` when it
 * has to) and holds it until its outcome is settled; a cancel while it waits ends it before it ran.
 * Never throws.
 */
export async function runPreparedToolCall(
  call: PreparedToolCall,
  context: ToolCallContext,
  options: Pick<ExecuteToolOptions, 'timers' | 'callSlots'> = {},
): Promise<ToolExecutionResult> {
  const name = call.tool.definition.name;
  if (context.signal?.aborted) {
    return failure('cancelled', `Tool "${name}" was cancelled before it started.`);
  }
  const slots = options.callSlots;
  if (!slots) return runUnderBudget(call, context, options);
  const slot = await slots.acquire(context.userId, context.signal, (wait) =>
    context.onProgress?.(slotWaitProgress(wait)),
  );
  if (!slot) {
    return failure(
      'cancelled',
      `Tool "${name}" was cancelled while it waited for a free slot (${USER_TOOL_CALL_LIMIT_VARIABLE}); it never ran.`,
    );
  }
  try {
    // Granted just as the cancel came: it still never started.
    if (context.signal?.aborted) {
      return failure('cancelled', `Tool "${name}" was cancelled before it started.`);
    }
    return await runUnderBudget(call, context, options);
  } finally {
    slot.release();
  }
}

/** The call itself: its budget starts here, its signal fires on the budget or the parent's abort. */
async function runUnderBudget(
  call: PreparedToolCall,
  context: ToolCallContext,
  options: Pick<ExecuteToolOptions, 'timers'>,
): Promise<ToolExecutionResult> {
  const { tool, settings, arguments: argumentObject } = call;
  const name = tool.definition.name;
  const budgetSeconds = getToolBudgetSeconds(tool, settings.parameters);
  const controller = new AbortController();
  const timers = options.timers ?? REAL_TOOL_TIMERS;
  const timer = timers.setTimeout(() => {
    controller.abort(
      new ToolTimeoutError(
        `Tool "${name}" ran out of its ${budgetSeconds}-second budget (timeoutSeconds) and was stopped. ` +
          'Try a smaller or faster request, or ask the user to raise the timeout in the tool settings.',
      ),
    );
  }, budgetSeconds * 1000);
  const onParentAbort = () =>
    controller.abort(new ToolCancelledError(`Tool "${name}" was cancelled before it finished.`));
  context.signal?.addEventListener('abort', onParentAbort, { once: true });

  const toolContext = createToolContext(context, settings, controller.signal);

  // The executor may ignore its signal; the race makes the budget hold regardless. A tool that
  // reports partial results on abort gets a short grace window to deliver them.
  let graceTimer: unknown;
  const aborted = new Promise<ToolExecutionResult>((resolve) => {
    const settle = () => {
      const abortFailure = toFailure(controller.signal.reason);
      if (tool.reportsPartialResultOnAbort) {
        graceTimer = timers.setTimeout(() => resolve(abortFailure), ABORT_GRACE_MILLISECONDS);
      } else resolve(abortFailure);
    };
    if (controller.signal.aborted) settle();
    else controller.signal.addEventListener('abort', settle, { once: true });
  });
  const run = (async (): Promise<ToolExecutionResult> => {
    try {
      return { ok: true, result: await tool.execute(argumentObject, toolContext) };
    } catch (error) {
      // An executor that stops because its signal fired reports the signal's cause, not its own —
      // unless it threw an error of that very classification, whose message is the more specific one
      // (the shell's timeout quotes the output so far).
      if (controller.signal.aborted) {
        const reason: unknown = controller.signal.reason;
        const sameCause =
          ToolError.isInstance(error) &&
          ToolError.isInstance(reason) &&
          error.classification === reason.classification;
        return toFailure(sameCause ? error : reason);
      }
      return toFailure(error);
    }
  })();

  try {
    return await Promise.race([run, aborted]);
  } finally {
    timers.clearTimeout(timer);
    if (graceTimer !== undefined) timers.clearTimeout(graceTimer);
    context.signal?.removeEventListener('abort', onParentAbort);
  }
}
