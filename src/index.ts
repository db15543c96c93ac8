/**
 * Mango Tools — public library API, under the specification's names.
 * Importing it registers every builtin tool.
 */
import './tools/builtin/index.ts';

export type * from './providers/types.ts';
export { type EnabledToolRuntime, getEnabledToolRuntime } from './settings/tool-runtime.ts';
export {
  InMemoryToolSettingsRepository,
  type ToolSettingsRepository,
} from './settings/tool-settings-repository.ts';
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
export { GrepPatternError } from './tools/fs/grep/compile-grep-pattern.ts';
export {
  PATH_POLICY_DEFAULT_PARAMETERS,
  PATH_POLICY_PARAMETER_DESCRIPTORS,
} from './tools/fs/path-policy-settings.ts';
export {
  type ResolvedPath,
  resolveAndValidatePath,
  workingDirectoryOf,
} from './tools/fs/resolve-and-validate-path.ts';
export { defaultToolRegistry, getTool, listTools, registerTool, ToolRegistry } from './tools/registry.ts';
export {
  getDefaultToolSettings,
  getSafeEffectiveToolSettings,
  getToolDefinitionsForTools,
  mergeToolSettings,
  normalizeToolParameters,
} from './tools/settings-policy.ts';
export type * from './tools/types.ts';
