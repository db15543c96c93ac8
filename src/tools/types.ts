/**
 * Core types of the tools layer (docs/architecture.md).
 * Tools import only from this layer; nothing here knows about HTTP, databases or providers.
 */

import type { JsonSchema } from '../contracts/json-schema.ts';
import type { ToolCategory } from '../contracts/tool-category.ts';
import type { ToolDefinition } from '../contracts/tool-definition.ts';
import type { ToolFailure } from '../contracts/tool-failure.ts';
import type { ToolParameterDescriptor } from '../contracts/tool-parameter-descriptor.ts';
import type { ToolProgressEvent } from '../contracts/tool-progress-event.ts';
import type { ReachableSet } from './access/reachable-set.ts';
import type { FreshnessLedger } from './freshness-ledger.ts';
import type { ToolTraits } from './tool-traits.ts';

export interface ToolSettingsMetadata {
  title: string;
  description: string;
  category: ToolCategory;
  enabledByDefault: boolean;
  canDisable: boolean;
  defaultParameters: Record<string, unknown>;
  parameterDescriptors: ToolParameterDescriptor[];
}

/** Settings after the merge defaults < saved < overrides. */
export interface EffectiveToolSettings {
  enabled: boolean;
  parameters: Record<string, unknown>;
}

/** One user's stored settings row for one tool; either part may be absent. */
export interface SavedToolSettings {
  enabled?: boolean;
  parameters?: Record<string, unknown>;
}

/**
 * What a caller supplies to run a tool: `userId` and what the call may reach are required.
 * `executeTool` resolves the rest into a {@link ToolContext}.
 */
export interface ToolCallContext {
  userId: string;
  chatId?: string;
  /**
   * What the call may reach (see access/reachable-set.ts): its working directory, where `~` points, and
   * the roots every path decision of every tool reads. There is no default: a caller that cannot say
   * what a call may reach cannot run a tool.
   */
  reachable: ReachableSet;
  /** The caller's abort (user cancel, stream teardown). */
  signal?: AbortSignal;
  /** The chat's freshness ledger; defaults to a process-wide in-memory ledger per chat id. */
  ledger?: FreshnessLedger;
  /** Receives progress events of long-running tools. */
  onProgress?: (event: ToolProgressEvent) => void;
  /** Clock in epoch milliseconds; tests inject a fixed one. */
  now?: () => number;
  /** Where tools that produce files (images) store them; a tool that needs it and has none refuses. */
  dataDirectory?: string;
}

/** Everything a tool's executor may use, fully resolved by `executeTool`. */
export interface ToolContext {
  userId: string;
  chatId: string | undefined;
  /** What the call may reach (see access/reachable-set.ts). */
  reachable: ReachableSet;
  /** Effective settings for this user and tool (defaults < saved < overrides). */
  settings: EffectiveToolSettings;
  /** Fires when the call's budget runs out or the caller aborts; `signal.reason` tells which. */
  signal: AbortSignal;
  ledger: FreshnessLedger;
  onProgress: (event: ToolProgressEvent) => void;
  now: () => number;
  /** Where the server stores files tools produce (images); undefined when the caller gave none. */
  dataDirectory: string | undefined;
}

export interface RegisteredTool {
  definition: ToolDefinition;
  /** Settings-aware definition (e.g. a `count` maximum that follows `maxImagesPerCall`). */
  buildDefinition?: (settings: EffectiveToolSettings) => ToolDefinition;
  settings: ToolSettingsMetadata;
  execute: (args: unknown, context: ToolContext) => Promise<unknown>;
  /**
   * Whether the tool can run in this deployment right now (e.g. an image provider is configured).
   * Absent = always available. An unavailable tool is never offered to models
   * (`getToolDefinitionsForTools` skips it); a direct call still reaches `execute`, which is expected
   * to fail with an `execution_error` that says how to make the tool available.
   */
  isAvailable?: () => boolean;
  /** Why the tool is unavailable (shown to users, refused on enabling); undefined while available. */
  unavailableReason?: () => string | undefined;
  /** A fact about how the tool runs here that users should see (e.g. how shells are sandboxed). */
  notice?: () => string | undefined;
  /**
   * When true, the executor answers its signal promptly with a result that reports the partial work
   * done so far (e.g. the images finished before the budget ran out), and `executeTool` waits up to
   * `ABORT_GRACE_MILLISECONDS` for that result instead of replacing it with the timeout/cancel failure.
   * An executor that throws after the abort still yields the timeout/cancel failure; when what it
   * throws is a ToolError of that same classification, its (more specific) message is kept.
   */
  reportsPartialResultOnAbort?: boolean;
  /**
   * The largest serialized result this tool produces by design, in bytes. The chat loop sends a result
   * whole up to the larger of its own budget (default 100 KiB) and this, so a tool whose own caps are
   * specified larger (read_file's 256 KiB byte views, which must reach the model whole) is not
   * cut by the loop. Leave it unset to take the loop's budget.
   */
  resultBudgetBytes?: number;
  /** What the tool is (read-only, destructive…); absent = assume the worst (see tool-traits.ts). */
  traits?: ToolTraits;
  /**
   * The JSON Schema every successful object result matches, for tools whose result shape is fixed;
   * MCP clients validate structured content against it.
   */
  outputSchema?: JsonSchema;
}

/** The envelope `executeTool` returns; it never throws. */
export type ToolExecutionResult = { ok: true; result: unknown } | { ok: false; error: ToolFailure };
