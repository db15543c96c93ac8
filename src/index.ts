/**
 * Mango Tools — public library API, under the specification's names.
 * Importing it registers every builtin tool.
 */
import './tools/builtin/index.ts';

export { loadConfig, type ServerConfig } from './config.ts';
export { type Database, openDatabase } from './db/database.ts';
export { createDatabaseLedgerFactory, DatabaseFreshnessLedger } from './db/database-freshness-ledger.ts';
export { DatabaseToolSettingsRepository } from './db/database-tool-settings-repository.ts';
export { DatabaseUserRepository } from './db/database-user-repository.ts';
export { migrate } from './db/migrate.ts';
export { createApp } from './http/app.ts';
export { type AppDependencies, createAppDependencies } from './http/app-dependencies.ts';
export type * from './providers/types.ts';
export { type RunningServer, startServer } from './server/start-server.ts';
export { type EnabledToolRuntime, getEnabledToolRuntime } from './settings/tool-runtime.ts';
export {
  InMemoryToolSettingsRepository,
  type ToolSettingsRepository,
} from './settings/tool-settings-repository.ts';
export {
  type ToolSettingsDescriptor,
  ToolSettingsService,
  type ToolSettingsUpdate,
} from './settings/tool-settings-service.ts';
export {
  clampIntegerSetting,
  getBooleanSetting,
  getEnabledPathListSetting,
  getStringListSetting,
  getStringSetting,
  optionalBoolean,
  optionalEnum,
  optionalInteger,
  optionalNumber,
  optionalString,
  optionalStringArray,
  readArgumentsObject,
  requireInteger,
  requireString,
} from './tools/arg-parsing.ts';
export * from './tools/errors.ts';
export { DEFAULT_TOOL_TIMEOUT_SECONDS, type ExecuteToolOptions, executeTool } from './tools/execution.ts';
export {
  type FileObservation,
  type FreshnessLedger,
  InMemoryFreshnessLedger,
} from './tools/freshness-ledger.ts';
export { defaultToolRegistry, getTool, listTools, registerTool, ToolRegistry } from './tools/registry.ts';
export {
  getDefaultToolSettings,
  getSafeEffectiveToolSettings,
  getToolDefinitionsForTools,
  mergeToolSettings,
  normalizeToolParameters,
} from './tools/settings-policy.ts';
export type * from './tools/types.ts';
