/**
 * Mango Tools — public library API, under the specification's names.
 * Importing it registers every builtin tool.
 */
import './tools/builtin/register-builtin-tools.ts';

export type * from './approvals/tool-approval-gate.ts';
export { readChatConfig } from './chat/chat-config.ts';
export { ChatError, type ChatErrorCode } from './chat/chat-errors.ts';
export {
  type Chat,
  type ChatMessage,
  type ChatRepository,
  getMessageRole,
} from './chat/chat-repository.ts';
export { ChatService, type ChatServiceDependencies, type CreateChatInput } from './chat/chat-service.ts';
export { InMemoryChatRepository } from './chat/in-memory-chat-repository.ts';
export { ConfigError } from './config/config-error.ts';
export {
  ENVIRONMENT_VARIABLES,
  type EnvironmentConfig,
  readEnvironment,
  readVariable,
} from './config/environment-variables.ts';
export { loadConfig, type ServerConfig } from './config.ts';
export type * from './contracts/conversation-item.ts';
export type * from './contracts/json-schema.ts';
export type * from './contracts/provider-event.ts';
export * from './contracts/provider-id.ts';
export type * from './contracts/tool-category.ts';
export type * from './contracts/tool-definition.ts';
export * from './contracts/tool-error-classification.ts';
export type * from './contracts/tool-failure.ts';
export type * from './contracts/tool-parameter-descriptor.ts';
export type * from './contracts/tool-progress-event.ts';
export * from './contracts/tool-result-view.ts';
export type * from './contracts/tool-settings-descriptor.ts';
export type * from './contracts/turn-event.ts';
export { type Database, openDatabase } from './db/database.ts';
export { DatabaseChatRepository } from './db/database-chat-repository.ts';
export { createDatabaseLedgerFactory, DatabaseFreshnessLedger } from './db/database-freshness-ledger.ts';
export { DatabaseToolSettingsRepository } from './db/database-tool-settings-repository.ts';
export { DatabaseUserRepository } from './db/database-user-repository.ts';
export { migrate } from './db/migrate.ts';
export { createApp } from './http/app.ts';
export { type AppDependencies, createAppDependencies } from './http/app-dependencies.ts';
export { createTurnEventStream, encodeTurnEventAsSse, SSE_HEADERS } from './http/chat/turn-sse.ts';
export type { GenerateImageResult, GenerateImageToolPlan } from './images/generate-images.ts';
export {
  configureImageGeneration,
  type ImageGenerationConfig,
  readImageGenerationConfigFromEnv,
} from './images/image-generation-config.ts';
export { IMAGE_QUALITIES, type ImageProvider, type ImageQuality } from './images/image-provider.ts';
export {
  type ImageRecord,
  type ImageRepository,
  InMemoryImageRepository,
} from './images/image-repository.ts';
export { serveImage } from './images/serve-image.ts';
export {
  handleMcpHttpRequest,
  type McpHttpDependencies,
  McpHttpSessions,
} from './mcp/mcp-http-handler.ts';
export {
  createMcpToolServer,
  type McpServerDependencies,
  type McpSessionBinding,
  type McpToolServerOptions,
} from './mcp/mcp-tool-server.ts';
export { repairHistory } from './model-loop/history-repair.ts';
export {
  DEFAULT_MAX_TOOL_ITERATIONS,
  type ModelLoopLimits,
  type ModelLoopParameters,
  runModelLoop,
} from './model-loop/model-loop.ts';
export { buildSystemPrompt } from './model-loop/system-prompt.ts';
export {
  type AnthropicMessagesProviderOptions,
  buildAnthropicRequest,
  createAnthropicMessagesProvider,
  historyToAnthropicMessages,
  translateAnthropicStream,
} from './providers/anthropic-messages-provider.ts';
export {
  buildGeminiGenerateContentRequest,
  createGeminiGenerateContentProvider,
  type GeminiGenerateContentCallData,
  type GeminiGenerateContentProviderOptions,
  historyToGeminiContents,
  translateGeminiGenerateContentStream,
  type VertexOptions,
} from './providers/gemini-generate-content-provider.ts';
export {
  buildGeminiRequest,
  createGeminiInteractionsProvider,
  type GeminiCallData,
  historyToGeminiSteps,
  translateGeminiStream,
} from './providers/gemini-interactions-provider.ts';
export { toGeminiSchema } from './providers/gemini-schema.ts';
export type * from './providers/model-provider.ts';
export {
  buildChatRequest,
  type ChatReasoningItem,
  createOpenAIChatProvider,
  historyToChatMessages,
  type OpenAIChatProviderOptions,
  translateChatStream,
} from './providers/openai-chat-provider.ts';
export {
  buildResponsesRequest,
  createOpenAIResponsesProvider,
  historyToResponsesInput,
  type OpenAIResponsesProviderOptions,
  translateResponsesStream,
} from './providers/openai-responses-provider.ts';
export {
  createProviderRegistry,
  isProviderId,
  type ProviderEnvironment,
  type ProviderRegistry,
  type ProviderRegistryOptions,
  type ProviderStatus,
} from './providers/provider-registry.ts';
export { type ProviderStreamSettings, readProviderStreamSettings } from './providers/provider-settings.ts';
export { DEFAULT_STREAM_TIMEOUTS, type StreamTimeouts } from './providers/stream-watch.ts';
export type { ProviderClientOptions } from './providers/streaming-provider.ts';
export { isStrictCompatible, toStrictSchema } from './providers/strict-schema.ts';
export {
  toolDefsToAnthropic,
  toolDefsToChatCompletions,
  toolDefsToGeminiInteractions,
  toolDefsToResponsesAPI,
} from './providers/tool-mapper.ts';
export {
  type BubblewrapSandboxOptions,
  createBubblewrapSandbox,
} from './sandbox/bubblewrap-sandbox.ts';
export { hostShellSandbox, installShellSandbox } from './sandbox/host-shell-sandbox.ts';
export { handToSandboxUser } from './sandbox/sandbox-file-owner.ts';
export type {
  SandboxedCommand,
  ShellSandbox,
  ShellSandboxStatus,
} from './sandbox/shell-sandbox.ts';
export { createShellSandboxFromEnvironment } from './sandbox/shell-sandbox-config.ts';
export { createUnsandboxedShell } from './sandbox/unsandboxed-shell.ts';
export { type RunningServer, startServer } from './server/start-server.ts';
export { type EnabledToolRuntime, getEnabledToolRuntime } from './settings/tool-runtime.ts';
export {
  InMemoryToolSettingsRepository,
  type ToolSettingsRepository,
} from './settings/tool-settings-repository.ts';
export { ToolSettingsService } from './settings/tool-settings-service.ts';
export { type AccessNeed, getAccessPolicy } from './tools/access/access-policy.ts';
export { type ResolvedPath, resolveAndValidatePath } from './tools/access/resolve-and-validate-path.ts';
export { getEnabledPathListSetting, readArgumentsObject } from './tools/arg-parsing.ts';
export { type BuildShellToolOptions, buildShellTool } from './tools/builtin/build-shell-tool.ts';
export {
  createGenerateImageToolPlan,
  type GenerateImagePlanOptions,
} from './tools/builtin/generate-image-plan.ts';
export { defineTool, type ToolDeclaration } from './tools/define-tool.ts';
export * from './tools/errors.ts';
export { DEFAULT_TOOL_TIMEOUT_SECONDS, type ExecuteToolOptions, executeTool } from './tools/execution.ts';
export {
  type FileObservation,
  type FreshnessLedger,
  InMemoryFreshnessLedger,
} from './tools/freshness-ledger.ts';
export { GrepPatternError } from './tools/fs/grep/compile-grep-pattern.ts';
export {
  filePathParameter,
  PATH_ACCESS_DEFAULT_PARAMETERS,
  PATH_ACCESS_PARAMETER_DESCRIPTORS,
  PATH_ACCESS_SETTINGS,
} from './tools/fs/path-access-settings.ts';
export { DEFAULT_TOOL_OUTPUT_BUDGET_BYTES, serializeToolOutput } from './tools/output/result-budget.ts';
export { defaultToolRegistry, getTool, listTools, registerTool, ToolRegistry } from './tools/registry.ts';
export {
  type RunShellCommandOptions,
  runShellCommand,
  type ShellCommandResult,
  type ShellTermination,
  type ShellTerminationKind,
} from './tools/shell/run-shell-command.ts';
export { buildShellEnvironment, type ShellEnvironmentRules } from './tools/shell/shell-environment.ts';
export {
  findShellInterpreter,
  type ShellInterpreter,
  type ShellKind,
} from './tools/shell/shell-interpreter.ts';
export { StringEnum, toToolParameters } from './tools/tool-schema.ts';
export {
  defaultSettingValues,
  describeSettings,
  readSettingValues,
  type SettingDeclaration,
  type SettingsDeclaration,
  type SettingValues,
  setting,
} from './tools/tool-settings.ts';
export {
  getDefaultToolSettings,
  getSafeEffectiveToolSettings,
  getToolDefinitionsForTools,
  mergeToolSettings,
  normalizeToolParameters,
} from './tools/tool-settings-resolver.ts';
export { CAUTIOUS_TRAITS, readOnlyLocalTraits, type ToolTraits, traitsOf } from './tools/tool-traits.ts';
export type * from './tools/types.ts';
export { type CallSlot, UserCallSlots } from './tools/user-call-slots.ts';
