/**
 * Builds the server's `ChatService` from the app's parts: providers from the environment
 * (`createProviderRegistry`), tools from the user's saved settings, the database freshness ledger,
 * the users' workspaces, the instance's tool call slots, and the chat settings
 * (`MANGO_MAX_TOOL_ITERATIONS`, `MANGO_TURN_LEASE_MS`, `MANGO_USER_MAX_TURNS`).
 *
 * Chats and messages live in the given repository: the server passes the database one
 * (`DatabaseChatRepository`, from `createAppDependencies`); the in-memory default serves tests.
 */
import type { ChatConfig } from '../../chat/chat-config.ts';
import type { ChatRepository } from '../../chat/chat-repository.ts';
import { ChatService } from '../../chat/chat-service.ts';
import { InMemoryChatRepository } from '../../chat/in-memory-chat-repository.ts';
import type { ProviderRegistry } from '../../providers/provider-registry.ts';
import { getEnabledToolRuntime } from '../../settings/tool-runtime.ts';
import type { ToolSettingsRepository } from '../../settings/tool-settings-repository.ts';
import type { ToolSettingsService } from '../../settings/tool-settings-service.ts';
import type { ToolTimers } from '../../tools/execution.ts';
import type { ChatFreshnessLedger } from '../../tools/freshness-ledger.ts';
import type { ToolRegistry } from '../../tools/registry.ts';
import type { UserCallSlots } from '../../tools/user-call-slots.ts';
import type { UserToolSource } from '../../tools/user-tool-source.ts';
import { turnTimingFor } from '../../turns/turn-timing.ts';
import type { WakeUpSource } from '../../turns/wake-up-source.ts';
import type { WorkspaceService } from '../../workspaces/workspace-service.ts';
import { isDatabaseUnavailableError } from '../database-outage.ts';

export interface ChatServiceFactoryOptions {
  /** From `readChatConfig(environment)`. */
  chatConfig: ChatConfig;
  workspaces: WorkspaceService;
  providers: ProviderRegistry;
  registry: ToolRegistry;
  /** Each user's own tools (external MCP servers' included), when there are any. */
  toolSource?: UserToolSource;
  toolSettingsRepository: ToolSettingsRepository;
  /** Where a rule remembered while approving a call is saved. */
  toolSettings: ToolSettingsService;
  /** The approval timeout's timer (tests fire it without waiting). */
  approvalTimers?: ToolTimers;
  ledgerForChat: (chatId: string) => ChatFreshnessLedger;
  /** The instance's per-user tool call slots, shared with its MCP sessions. */
  toolCallSlots?: UserCallSlots;
  dataDirectory: string;
  now: () => number;
  repository?: ChatRepository;
  /** How answers, cancels and turn events reach other instances; default: this process only. */
  wakeUps?: WakeUpSource;
}

export function createServerChatService(options: ChatServiceFactoryOptions): ChatService {
  const { chatConfig } = options;
  return new ChatService({
    repository: options.repository ?? new InMemoryChatRepository(),
    createProvider: (providerId) => {
      const provider = options.providers.get(providerId);
      // ChatService turns this into a provider_unavailable ChatError naming the provider.
      if (!provider) throw new Error(options.providers.status(providerId).reason ?? 'it is not configured.');
      return provider;
    },
    loadToolRuntime: (userId, reachable) =>
      getEnabledToolRuntime(options.toolSettingsRepository, userId, {
        registry: options.registry,
        toolSource: options.toolSource,
        reachable,
      }),
    createLedger: options.ledgerForChat,
    workspaces: options.workspaces,
    dataDirectory: options.dataDirectory,
    now: options.now,
    limits: { maxIterations: chatConfig.maxToolIterations },
    executeOptions: { registry: options.registry, callSlots: options.toolCallSlots },
    turnTiming: turnTimingFor(chatConfig.turnLeaseMilliseconds),
    userTurnLimit: chatConfig.userMaxTurns,
    rememberApprovalRule: async (userId, toolName, { setting, rule }) => {
      await options.toolSettings.addListEntry(userId, toolName, setting, rule);
    },
    approvalTimers: options.approvalTimers,
    isDatabaseUnavailable: isDatabaseUnavailableError,
    wakeUps: options.wakeUps,
  });
}
