/**
 * The MCP server of one user (docs/mcp.md): the same tools, settings and safety as a chat, for any MCP
 * client. One instance serves one MCP session (one stdio process, or one Streamable HTTP session).
 *
 * Guarantees:
 * - `tools/list` is computed on every call from the user's saved settings (`getEnabledToolRuntime`),
 *   so it offers exactly the tools the user has enabled, with their plain JSON Schemas (the source
 *   dialect, before any provider's mapping) — a settings change is visible on the next list.
 * - `tools/call` runs through `executeTool` with the user's saved row, the session's access computed
 *   again for that call (`resolveAccess`: a revoked grant applies at the next call, and a refusal fails
 *   the call with `permission_denied` before any tool runs), one freshness ledger for the whole
 *   session, and the request's abort signal: a client `notifications/cancelled` (or the session
 *   closing) aborts the running call, which kills shells.
 * - Tool failures come back as `isError: true` results carrying `{classification, message}`
 *   (see `toCallToolResult`), never as JSON-RPC errors.
 * - Progress events of a tool reach the client as `notifications/progress` when it sent a progressToken.
 * - A call that needs the user's approval is asked about through elicitation when the client declared
 *   it, and listed as destructive either way (`mcp-call-approval.ts`).
 * - A settings change of the user (`ToolSettingsEvents`, or a difference seen by the optional poll)
 *   sends `notifications/tools/list_changed`; subscription and poll end when the session closes.
 */
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type ListToolsResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import packageJson from '../../package.json' with { type: 'json' };
import { errorMessage } from '../errors/error-message.ts';
import { getEnabledToolRuntime } from '../settings/tool-runtime.ts';
import type { ToolSettingsEvents } from '../settings/tool-settings-events.ts';
import type { ToolSettingsRepository } from '../settings/tool-settings-repository.ts';
import { type ExecuteToolOptions, prepareToolCall, runPreparedToolCall } from '../tools/execution.ts';
import { type FreshnessLedger, InMemoryFreshnessLedger } from '../tools/freshness-ledger.ts';
import { resultBudgetOf } from '../tools/output/result-budget.ts';
import { defaultToolRegistry, type ToolRegistry } from '../tools/registry.ts';
import type { ToolCallContext } from '../tools/types.ts';
import type { ToolAccessContext } from '../workspaces/tool-access.ts';
import { asksBeforeEachCall, confirmThroughElicitation } from './mcp-call-approval.ts';
import { createProgressReporter } from './mcp-progress.ts';
import { assertFirstPage, toMcpTool, unknownToolResult } from './mcp-tool-listing.ts';
import { toCallToolResult } from './tool-call-result.ts';

/** What every MCP session of a process shares: where settings live and how changes are announced. */
export interface McpServerDependencies {
  toolSettings: ToolSettingsRepository;
  /** When given, a settings change of the session's user sends `notifications/tools/list_changed`. */
  toolSettingsEvents?: ToolSettingsEvents;
  /** Defaults to the process-wide registry the builtins register into. */
  registry?: ToolRegistry;
  /** Passed to `executeTool`: the instance's per-user call slots, timers (tests inject their own). */
  executeOptions?: Omit<ExecuteToolOptions, 'registry'>;
  /** Where tools that produce files store them; defaults to `executeTool`'s (`./data`). */
  dataDirectory?: string;
  /** Diagnostics; never stdout (in stdio mode stdout carries only protocol messages). */
  log?: (message: string) => void;
  /**
   * When set, the enabled tool list is re-read this often, and a difference from the list the client
   * was last given sends `notifications/tools/list_changed`: how a session notices a change made by another process
   * (the API server writing the shared database), which no in-process event reaches.
   */
  settingsPollMilliseconds?: number;
}

/** What one session is bound to: its user, and what its tools may reach. */
export interface McpSessionBinding {
  userId: string;
  /**
   * The access of one call, computed before every call (the binding checked again). A rejection's
   * message becomes the call's `permission_denied` failure and no tool runs.
   */
  resolveAccess: () => Promise<ToolAccessContext>;
  /** The session's freshness ledger; defaults to a fresh in-memory one. */
  ledger?: FreshnessLedger;
  /** Told once when the session closes (after the settings subscription ended). */
  onClose?: () => void;
}

export type McpToolServerOptions = McpServerDependencies & McpSessionBinding;

export const MCP_SERVER_NAME = 'mango-tools';

const INSTRUCTIONS =
  'Tools of Mango Tools, run under this user’s tool settings and path policy. A failed call returns ' +
  'isError with {error: {classification, message}}; read the message, correct the call, and retry.';

/**
 * Creates the MCP server of one session. Connect it to a transport (`server.connect(transport)`);
 * closing the transport or the server ends the session, aborts running calls and unsubscribes.
 */
export function createMcpToolServer(options: McpToolServerOptions): Server {
  const registry = options.registry ?? defaultToolRegistry;
  const log = options.log ?? ((message: string) => console.error(`[mango mcp] ${message}`));
  const ledger = options.ledger ?? new InMemoryFreshnessLedger();
  const chatId = `mcp-${randomUUID()}`;

  const server = new Server(
    { name: MCP_SERVER_NAME, version: packageJson.version },
    { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS },
  );

  /** `reportInvalid` is false for the poll, so a corrupted row is logged once per list, not per tick. */
  const listTools = async (reportInvalid = true): Promise<Tool[]> => {
    const runtime = await getEnabledToolRuntime(options.toolSettings, options.userId, {
      registry,
      onInvalidSettings: (error) => {
        if (reportInvalid) log(`user ${options.userId}: invalid saved setting ignored: ${error.message}`);
      },
    });
    return runtime.definitions.map((definition) => {
      const registered = registry.get(definition.name);
      const asks =
        registered !== undefined && asksBeforeEachCall(registered, runtime.savedSettings[definition.name]);
      return toMcpTool(definition, registered, asks);
    });
  };

  /** The list the client was last given, as JSON: the poll's baseline. */
  let listedFingerprint: string | undefined;
  server.setRequestHandler(ListToolsRequestSchema, async (request): Promise<ListToolsResult> => {
    assertFirstPage(request.params?.cursor);
    const tools = await listTools();
    listedFingerprint = JSON.stringify(tools);
    return { tools };
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args } = request.params;
    const progressToken = request.params._meta?.progressToken;
    let access: ToolAccessContext;
    try {
      access = await options.resolveAccess();
    } catch (error) {
      const message = errorMessage(error);
      return toCallToolResult({ ok: false, error: { classification: 'permission_denied', message } });
    }
    const context: ToolCallContext = {
      userId: options.userId,
      chatId,
      ...access,
      signal: extra.signal,
      ledger,
      ...(options.dataDirectory === undefined ? {} : { dataDirectory: options.dataDirectory }),
      ...(progressToken === undefined
        ? {}
        : {
            onProgress: createProgressReporter(progressToken, extra.sendNotification, (error) =>
              log(`progress notification lost: ${(error as Error).message}`),
            ),
          }),
    };
    if (!registry.get(name)) {
      return unknownToolResult(
        name,
        (await listTools()).map((tool) => tool.name),
      );
    }
    const savedSettings = await options.toolSettings.get(options.userId, name);
    const executeOptions: ExecuteToolOptions = {
      onInvalidSettings: (error) =>
        log(`user ${options.userId}: invalid saved setting of ${name} ignored: ${error.message}`),
      ...options.executeOptions,
      registry,
    };
    const budget = resultBudgetOf(registry.get(name));
    // Checked once: the approval question and the run both take what the checks accepted.
    const prepared = prepareToolCall(name, args ?? {}, savedSettings, executeOptions);
    if (!prepared.ok) return toCallToolResult(prepared.failure, budget);
    const refusal = await confirmThroughElicitation(server, prepared.call, context);
    if (refusal !== undefined) return toCallToolResult(refusal, budget);
    return toCallToolResult(await runPreparedToolCall(prepared.call, context, executeOptions), budget);
  });

  const announceListChanged = () => {
    // Until the client lists again there is nothing newer to announce: one notification per change.
    listedFingerprint = undefined;
    // Only an initialized session can take notifications; before that the client lists anyway.
    if (!server.transport || server.getClientCapabilities() === undefined) return;
    server.sendToolListChanged().catch((error: unknown) => {
      log(`tools/list_changed not delivered: ${(error as Error).message}`);
    });
  };
  let unsubscribe = options.toolSettingsEvents?.subscribe(options.userId, announceListChanged);
  const stopPolling = options.settingsPollMilliseconds
    ? repeatWithoutOverlap(options.settingsPollMilliseconds, log, async () => {
        if (listedFingerprint === undefined) return; // nothing listed since the last announcement
        const current = JSON.stringify(await listTools(false));
        if (listedFingerprint !== undefined && current !== listedFingerprint) announceListChanged();
      })
    : undefined;

  server.onclose = () => {
    unsubscribe?.();
    unsubscribe = undefined;
    stopPolling?.();
    options.onClose?.();
  };
  server.onerror = (error) => log(`protocol error: ${error.message}`);
  return server;
}

/** Runs `task` every `intervalMilliseconds`, skipping a tick while the previous run is still going. */
function repeatWithoutOverlap(
  intervalMilliseconds: number,
  log: (message: string) => void,
  task: () => Promise<void>,
): () => void {
  let running = false;
  const timer = setInterval(async () => {
    if (running) return;
    running = true;
    try {
      await task();
    } catch (error) {
      log(`reading the tool list failed: ${(error as Error).message}`);
    } finally {
      running = false;
    }
  }, intervalMilliseconds);
  timer.unref?.();
  return () => clearInterval(timer);
}
