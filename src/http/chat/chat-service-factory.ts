/**
 * Builds the server's `ChatService` from the app's parts: providers from the environment
 * (`createProviderRegistry`), tools from the user's saved settings, the database freshness ledger,
 * and the chat settings (`MANGO_WORKSPACE_ROOTS`, `MANGO_MAX_TOOL_ITERATIONS`, `MANGO_TURN_LEASE_MS`).
 *
 * Chats and messages live in the given repository: the server passes the database one
 * (`DatabaseChatRepository`, from `createAppDependencies`); the in-memory default serves tests.
 */
import type { ChatConfig } from '../../chat/chat-config.ts';
import { type ChatRepository, InMemoryChatRepository } from '../../chat/chat-repository.ts';
import { ChatService } from '../../chat/chat-service.ts';
import { turnTimingFor } from '../../chat/turn-timing.ts';
import type { ProviderRegistry } from '../../providers/provider-registry.ts';
import { getEnabledToolRuntime } from '../../settings/tool-runtime.ts';
import type { ToolSettingsRepository } from '../../settings/tool-settings-repository.ts';
import type { FreshnessLedger } from '../../tools/freshness-ledger.ts';
import type { ToolRegistry } from '../../tools/registry.ts';

export interface ChatServiceFactoryOptions {
  /** From `readChatConfig(environment)`. */
  chatConfig: ChatConfig;
  providers: ProviderRegistry;
  registry: ToolRegistry;
  toolSettingsRepository: ToolSettingsRepository;
  ledgerForChat: (chatId: string) => FreshnessLedger;
  dataDirectory: string;
  now: () => number;
  repository?: ChatRepository;
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
    loadToolRuntime: (userId) =>
      getEnabledToolRuntime(options.toolSettingsRepository, userId, { registry: options.registry }),
    createLedger: options.ledgerForChat,
    workspaceRoots: chatConfig.workspaceRoots,
    homeDirectory: chatConfig.homeDirectory,
    dataDirectory: options.dataDirectory,
    now: options.now,
    limits: { maxIterations: chatConfig.maxToolIterations },
    executeOptions: { registry: options.registry },
    turnTiming: turnTimingFor(chatConfig.turnLeaseMilliseconds),
  });
}
