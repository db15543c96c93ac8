/**
 * The chat turn loop (docs/chats.md, "The rules of the loop"). One async generator per
 * turn: it streams the model's response, runs the tool calls it asked for through `executeTool`, feeds
 * the serialized results back, and repeats until the model answers without tools or the iteration limit
 * is reached.
 *
 * Guarantees:
 * - Everything it uses arrives as a parameter (provider, tools, context, signal, clock, limits,
 *   persistence), so tests drive it with scripted providers and no sleeps.
 * - Every completed conversation item goes through `onItem` before the loop moves on, in history
 *   order: user text (unless the caller saved it already), then per model response its provider
 *   items, text and tool calls, then each tool result in call order. A crash loses at most the calls
 *   in flight.
 * - Tool calls of one response run concurrently when every called tool declares the `readOnly` trait
 *   (an unknown tool or one without traits is not read-only), one after another otherwise, in the
 *   order the model asked for them; results go back in call order.
 * - A provider `finish{error}`, a stream that throws, ends without `finish`, or stops in the middle of
 *   a tool call ends the turn with `done{error}`; none of that response's tool calls runs. The text
 *   streamed so far is kept as one `assistant_text` item; the response's provider items and calls are
 *   dropped (an unanswered call or an orphaned reasoning item would poison the next request).
 * - The caller's signal aborts the provider request and every running tool; the turn then ends with
 *   `done{cancelled}` without waiting for a provider or tool that ignores its signal.
 * - Every tool call the model completed gets exactly one `tool_result` event and one persisted result.
 * - Exactly one `done` event, always last. If the consumer stops iterating early, the turn is
 *   cancelled and its running tools are stopped before the generator finishes.
 */

import type { ToolApprovalGate } from '../approvals/tool-approval-gate.ts';
import { approveToolCall, withRememberedRule } from '../approvals/tool-call-approval.ts';
import { defaultOf } from '../config/environment-variables.ts';
import type { ConversationItem } from '../contracts/conversation-item.ts';
import type { FinishReason } from '../contracts/provider-event.ts';
import type { TurnDoneEvent, TurnDoneReason, TurnEvent } from '../contracts/turn-event.ts';
import { errorMessage } from '../errors/error-message.ts';
import { MangoError } from '../errors/mango-error.ts';
import type { ModelProvider } from '../providers/model-provider.ts';
import type { EnabledToolRuntime } from '../settings/tool-runtime.ts';
import { type ExecuteToolOptions, runPreparedToolCall } from '../tools/execution.ts';
import { getInMemoryLedgerForChat } from '../tools/freshness-ledger.ts';
import { createStagedLedger, type StagedFreshnessLedger } from '../tools/fs/staged-ledger.ts';
import {
  DEFAULT_TOOL_OUTPUT_BUDGET_BYTES,
  resultBudgetOf,
  serializeToolOutput,
} from '../tools/output/result-budget.ts';
import { defaultToolRegistry } from '../tools/registry.ts';
import { traitsOf } from '../tools/tool-traits.ts';
import type { ToolCallContext, ToolExecutionResult } from '../tools/types.ts';
import { AsyncEventQueue } from './async-event-queue.ts';
import { parseToolCallArguments } from './parse-tool-call-arguments.ts';
import { streamModelResponse, type ToolCallItem } from './stream-model-response.ts';
import { appendToSystemPrompt, buildFinalIterationNotice } from './system-prompt.ts';

/** Default of `MANGO_MAX_TOOL_ITERATIONS`: model calls allowed in one turn. */
export const DEFAULT_MAX_TOOL_ITERATIONS = defaultOf('MANGO_MAX_TOOL_ITERATIONS');

export interface ModelLoopLimits {
  /** Model requests allowed in one turn; tools are withheld on the last one. Default 25. */
  maxIterations?: number;
  /** UTF-8 bytes of one serialized tool result sent to the model. Default 100 KiB. */
  maxToolOutputBytes?: number;
}

/** The chat's part of every tool call's context; the loop adds the signal, progress sink and clock. */
export type ModelLoopToolContext = Omit<ToolCallContext, 'signal' | 'onProgress' | 'now'>;

export interface ModelLoopParameters {
  provider: ModelProvider;
  model: string;
  systemPrompt?: string;
  /** The conversation so far (earlier turns), consistent: every tool call has its result. */
  history: readonly ConversationItem[];
  /** The user's message that starts this turn. */
  userText: string;
  /**
   * True when the caller already persisted `userText` (the server does, before it acknowledges the
   * turn, so an acknowledged message is never lost); it is then not passed to `onItem` again.
   */
  userTextSaved?: boolean;
  /** What the model is offered and the user's saved settings rows for `executeTool`. */
  tools: EnabledToolRuntime;
  toolContext: ModelLoopToolContext;
  /**
   * Called before every tool call for that call's access fields (the chat's binding checked again, so a
   * revoke applies at the next call); they replace those of `toolContext`. A rejection fails the call
   * with `permission_denied` and the rejection's message, and no tool runs.
   */
  accessForCall?: () => Promise<Partial<ModelLoopToolContext>>;
  /** The caller's cancel (user cancel, client disconnect). */
  signal?: AbortSignal;
  /** Clock in epoch milliseconds, for durations and for the tools. */
  now?: () => number;
  limits?: ModelLoopLimits;
  /** Persists one completed item; awaited. A rejection ends the turn with `done{error}`. */
  onItem?: (item: ConversationItem) => void | Promise<void>;
  /** Registry and timers for `executeTool` (tests use their own). */
  executeOptions?: ExecuteToolOptions;
  /**
   * Answers "may this call run?" for calls that need the user's approval. Absent: such calls are
   * denied (nobody could answer).
   */
  approvals?: ToolApprovalGate;
}

const CANCELLED_MESSAGE = 'The turn was cancelled.';

class PersistenceError extends MangoError {
  constructor(message: string, options?: ErrorOptions) {
    super('persistence_failed', message, options);
  }
}

function toolResultEvent(
  call: ToolCallItem,
  envelope: ToolExecutionResult,
  durationMs: number,
): Extract<TurnEvent, { type: 'tool_result' }> {
  const base = { type: 'tool_result' as const, callId: call.callId, name: call.name, durationMs };
  return envelope.ok
    ? { ...base, ok: true, result: envelope.result }
    : { ...base, ok: false, error: envelope.error };
}

/** The `done` of a turn the model answered, carrying a finish reason the user should see. */
function completedDone(reason: FinishReason, message: string | undefined): TurnDoneEvent {
  switch (reason) {
    case 'length':
      return {
        ...done('completed', "The model's answer was cut at its output token limit."),
        finishReason: 'length',
      };
    case 'refusal':
      return { ...done('completed', message ?? 'The model refused the request.'), finishReason: 'refusal' };
    case 'content_filter':
      return {
        ...done('completed', message ?? "The provider's content filter stopped the answer."),
        finishReason: 'content_filter',
      };
    default:
      return done('completed');
  }
}

function done(reason: TurnDoneReason, message?: string): TurnDoneEvent {
  return message === undefined ? { type: 'done', reason } : { type: 'done', reason, message };
}

/** Runs one chat turn; see the module header for its guarantees. */
export async function* runModelLoop(parameters: ModelLoopParameters): AsyncGenerator<TurnEvent, void> {
  const maxIterations = parameters.limits?.maxIterations ?? DEFAULT_MAX_TOOL_ITERATIONS;
  const outputBudget = parameters.limits?.maxToolOutputBytes ?? DEFAULT_TOOL_OUTPUT_BUDGET_BYTES;
  if (!Number.isInteger(maxIterations) || maxIterations < 1) {
    throw new RangeError(`maxIterations must be a positive integer, got ${maxIterations}.`);
  }
  const now = parameters.now ?? Date.now;
  const controller = new AbortController();
  const signal = controller.signal;
  const onParentAbort = () => controller.abort(parameters.signal?.reason);
  if (parameters.signal?.aborted) controller.abort(parameters.signal.reason);
  else parameters.signal?.addEventListener('abort', onParentAbort, { once: true });

  const history: ConversationItem[] = [...parameters.history];
  const save = async (item: ConversationItem): Promise<void> => {
    try {
      await parameters.onItem?.(item);
    } catch (error) {
      throw new PersistenceError(`The conversation could not be saved: ${errorMessage(error)}`);
    }
    history.push(item);
  };

  // The user's own tools (external ones included) when the runtime carries them.
  const registry = parameters.tools.registry ?? parameters.executeOptions?.registry ?? defaultToolRegistry;
  const executeOptions: ExecuteToolOptions = { ...parameters.executeOptions, registry };
  /** The user's saved rows, plus the rules they remember while answering approvals in this turn. */
  const savedSettings: Record<string, unknown> = { ...parameters.tools.savedSettings };
  /** The chat's ledger, one for the whole turn (executeTool would give a chat-less call a fresh one). */
  const chatLedger = parameters.toolContext.ledger ?? getInMemoryLedgerForChat(parameters.toolContext.chatId);

  /**
   * Persists a call's result as the model will see it and returns the event for the client. What the
   * call recorded in the freshness ledger counts only when the model receives its whole result.
   */
  const saveResult = async (
    call: ToolCallItem,
    envelope: ToolExecutionResult,
    durationMs: number,
    ledger?: StagedFreshnessLedger,
  ) => {
    const tool = registry.get(call.name);
    const serialized = serializeToolOutput(envelope, resultBudgetOf(tool, outputBudget));
    await save({
      type: 'tool_result',
      callId: call.callId,
      name: call.name,
      ok: serialized.ok,
      output: serialized.output,
    });
    if (ledger && envelope.ok && serialized.ok && !serialized.truncated) await ledger.commit();
    return toolResultEvent(call, envelope, durationMs);
  };

  /** Runs one response's calls, pushing progress and results into `queue` in call order. */
  const runCalls = async (calls: readonly ToolCallItem[], queue: AsyncEventQueue<TurnEvent>) => {
    const runOne = async (call: ToolCallItem) => {
      const parsed = parseToolCallArguments(call.name, call.arguments);
      if (!parsed.ok) return { envelope: { ok: false, error: parsed.error } as const, durationMs: 0 };
      let access: Partial<ModelLoopToolContext> = {};
      try {
        access = (await parameters.accessForCall?.()) ?? {};
      } catch (error) {
        const message = errorMessage(error);
        return {
          envelope: { ok: false, error: { classification: 'permission_denied', message } } as const,
          durationMs: 0,
        };
      }
      const ledger = createStagedLedger(chatLedger);
      const onProgress: ToolCallContext['onProgress'] = (progress) =>
        queue.push({ type: 'tool_progress', callId: call.callId, name: call.name, progress });
      let context: ToolCallContext = {
        ...parameters.toolContext,
        ...access,
        ledger,
        signal,
        now,
        onProgress,
      };
      const approval = await approveToolCall({
        callId: call.callId,
        name: call.name,
        arguments: parsed.value,
        context,
        savedSettings: savedSettings[call.name],
        executeOptions,
        gate: parameters.approvals,
        signal,
        emit: (event) => queue.push(event),
      });
      if (!approval.run) return { envelope: approval.envelope, durationMs: 0 };
      if (approval.remembered) {
        savedSettings[call.name] = withRememberedRule(savedSettings[call.name], approval.remembered);
      }
      if (approval.asked) {
        // The wait may have been long: a grant revoked meanwhile applies to this call.
        try {
          context = { ...context, ...((await parameters.accessForCall?.()) ?? {}) };
        } catch (error) {
          const message = errorMessage(error);
          return {
            envelope: { ok: false, error: { classification: 'permission_denied', message } } as const,
            durationMs: 0,
          };
        }
      }
      const startedAt = now();
      // The approval step made executeTool's checks already: run what they accepted.
      const envelope = await runPreparedToolCall(approval.call, context, executeOptions);
      return { envelope, durationMs: Math.max(0, now() - startedAt), ledger };
    };
    const record = async (call: ToolCallItem, outcome: Awaited<ReturnType<typeof runOne>>) => {
      const ledger = 'ledger' in outcome ? outcome.ledger : undefined;
      queue.push(await saveResult(call, outcome.envelope, outcome.durationMs, ledger));
    };
    // Read-only calls observe and change nothing, so running them side by side cannot change any outcome.
    if (calls.every((call) => traitsOf(registry.get(call.name)).readOnly)) {
      const running = calls.map(runOne);
      for (const [index, call] of calls.entries()) await record(call, await running[index]!);
    } else {
      for (const call of calls) await record(call, await runOne(call));
    }
  };

  let inFlight: Promise<unknown> | undefined;
  try {
    if (signal.aborted) {
      yield done('cancelled', CANCELLED_MESSAGE);
      return;
    }
    const userItem: ConversationItem = { type: 'user_text', text: parameters.userText };
    if (parameters.userTextSaved === true) history.push(userItem);
    else await save(userItem);

    for (let iteration = 1; iteration <= maxIterations; iteration += 1) {
      const isLast = iteration === maxIterations;
      const response = yield* streamModelResponse(
        parameters.provider,
        {
          model: parameters.model,
          systemPrompt: isLast
            ? appendToSystemPrompt(parameters.systemPrompt, buildFinalIterationNotice(maxIterations))
            : parameters.systemPrompt,
          history: [...history],
          tools: isLast ? [] : parameters.tools.definitions,
          signal,
        },
        signal,
      );

      if (response.status !== 'finished') {
        if (response.text !== '') await save({ type: 'assistant_text', text: response.text });
        yield response.status === 'cancelled'
          ? done('cancelled', CANCELLED_MESSAGE)
          : done('error', response.message);
        return;
      }
      for (const item of response.items) await save(item);
      if (response.calls.length === 0) {
        yield completedDone(response.reason, response.message);
        return;
      }

      if (isLast) {
        const message =
          `Not run: this turn reached its limit of ${maxIterations} model calls before the call could run. ` +
          'Ask the user whether to continue.';
        for (const call of response.calls) {
          const envelope: ToolExecutionResult = {
            ok: false,
            error: { classification: 'cancelled', message },
          };
          yield await saveResult(call, envelope, 0);
        }
        yield done(
          'max_iterations',
          `The model still called tools after ${maxIterations} model calls; the turn stopped.`,
        );
        return;
      }

      const queue = new AsyncEventQueue<TurnEvent>();
      let failure: unknown;
      const execution = runCalls(response.calls, queue)
        .catch((error: unknown) => {
          failure = error;
          controller.abort();
        })
        .finally(() => queue.close());
      inFlight = execution;
      for await (const event of queue) yield event;
      await execution;
      inFlight = undefined;
      if (failure !== undefined) throw failure;
      if (signal.aborted) {
        yield done('cancelled', CANCELLED_MESSAGE);
        return;
      }
    }
  } catch (error) {
    if (!(error instanceof PersistenceError)) throw error;
    yield done('error', error.message);
  } finally {
    parameters.signal?.removeEventListener('abort', onParentAbort);
    controller.abort();
    await inFlight;
  }
}
