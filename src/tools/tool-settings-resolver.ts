/**
 * Settings resolver (docs/tools.md, "Settings"): pure functions that compute a tool's effective settings.
 * Stored settings are user data and may be stale or corrupted; `getSafeEffectiveToolSettings` keeps a
 * bad row from ever breaking a chat, while `mergeToolSettings` is strict so the API can refuse bad input.
 */

import type { ToolDefinition } from '../contracts/tool-definition.ts';
import type { PathListEntry, ToolParameterDescriptor } from '../contracts/tool-parameter-descriptor.ts';
import { ToolParameterError } from './errors.ts';
import { toolSettingsMetadataOf } from './tool-settings-metadata.ts';
import type { EffectiveToolSettings, RegisteredTool, SavedToolSettings } from './types.ts';

function cloneValue<T>(value: T): T {
  return structuredClone(value);
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)}`;
  if (typeof value === 'number') return `the number ${value}`;
  return `a ${typeof value}`;
}

/**
 * Defaults from the tool's metadata: `enabledByDefault` and a copy of `defaultParameters`, the
 * universal settings included (`tool-settings-metadata.ts`).
 */
export function getDefaultToolSettings(tool: RegisteredTool): EffectiveToolSettings {
  return {
    enabled: tool.settings.enabledByDefault,
    parameters: cloneValue(toolSettingsMetadataOf(tool).defaultParameters),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A number setting outside its descriptor's bounds is `out_of_range`, naming the bound. */
function checkSettingRange(
  toolName: string,
  descriptor: ToolParameterDescriptor,
  where: string,
  numeric: number,
): void {
  if (descriptor.min !== undefined && numeric < descriptor.min) {
    throw new ToolParameterError(
      toolName,
      descriptor.name,
      'out_of_range',
      `${where} must be at least ${descriptor.min}, got ${numeric}.`,
    );
  }
  if (descriptor.max !== undefined && numeric > descriptor.max) {
    throw new ToolParameterError(
      toolName,
      descriptor.name,
      'out_of_range',
      `${where} must be at most ${descriptor.max}, got ${numeric}.`,
    );
  }
}

/** A path list: entries of exactly a non-empty `path` without NUL and a boolean `enabled`. */
function isPathList(value: unknown): value is PathListEntry[] {
  return (
    Array.isArray(value) &&
    value.every(
      (item) =>
        isRecord(item) &&
        typeof item.path === 'string' &&
        item.path.length > 0 &&
        !item.path.includes('\0') &&
        typeof item.enabled === 'boolean' &&
        Object.keys(item).every((key) => key === 'path' || key === 'enabled'),
    )
  );
}

/**
 * How a message names a setting: by the label people see on the Tools page, never by its key. The key
 * goes with the error as its `parameter`, for programs and for the page to find the field.
 */
function settingWhere(toolName: string, descriptor: ToolParameterDescriptor): string {
  return `Tool "${toolName}" setting "${descriptor.label}"`;
}

function normalizeParameterValue(
  toolName: string,
  descriptor: ToolParameterDescriptor,
  value: unknown,
): unknown {
  const where = settingWhere(toolName, descriptor);
  const typeError = (expected: string) =>
    new ToolParameterError(
      toolName,
      descriptor.name,
      'invalid_type',
      `${where} must be ${expected}, got ${describeValue(value)}.`,
    );
  const checkRange = (numeric: number) => checkSettingRange(toolName, descriptor, where, numeric);

  switch (descriptor.type) {
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw typeError('an integer');
      checkRange(value);
      return value;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw typeError('a finite number');
      checkRange(value);
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw typeError('a boolean');
      return value;
    case 'string':
      if (typeof value !== 'string') throw typeError('a string');
      return value;
    case 'select': {
      if (typeof value !== 'string') throw typeError('a string');
      const allowed = descriptor.allowedValues ?? [];
      if (!allowed.includes(value)) {
        throw new ToolParameterError(
          toolName,
          descriptor.name,
          'not_allowed_value',
          `${where} must be one of ${allowed.map((item) => JSON.stringify(item)).join(', ')}, got ${JSON.stringify(value)}.`,
        );
      }
      return value;
    }
    case 'string_list':
      if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
        throw typeError('a list of strings');
      }
      return [...value];
    case 'path_list': {
      if (!isPathList(value)) throw typeError('a list of {path: non-empty string, enabled: boolean} entries');
      return value.map((item) => ({ path: item.path, enabled: item.enabled }));
    }
  }
}

/**
 * Validates parameter names, types, min/max and allowed values; returns a normalized copy.
 * @throws ToolParameterError naming the tool, the parameter and the rule.
 */
export function normalizeToolParameters(tool: RegisteredTool, params: unknown): Record<string, unknown> {
  const toolName = tool.definition.name;
  if (!isRecord(params)) {
    throw new ToolParameterError(
      toolName,
      undefined,
      'invalid_type',
      `Tool "${toolName}" parameters must be an object, got ${describeValue(params)}.`,
    );
  }
  const descriptors = new Map(
    toolSettingsMetadataOf(tool).parameterDescriptors.map((descriptor) => [descriptor.name, descriptor]),
  );
  const normalized: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    const descriptor = descriptors.get(name);
    if (!descriptor) {
      const known = [...descriptors.keys()];
      throw new ToolParameterError(
        toolName,
        name,
        'unknown_parameter',
        `Tool "${toolName}" has no setting "${name}"${known.length > 0 ? `; its settings are ${known.join(', ')}` : '; it has no settings'}.`,
      );
    }
    normalized[name] = normalizeParameterValue(toolName, descriptor, value);
  }
  return normalized;
}

function checkRequired(tool: RegisteredTool, parameters: Record<string, unknown>): void {
  for (const descriptor of toolSettingsMetadataOf(tool).parameterDescriptors) {
    if (descriptor.required && parameters[descriptor.name] === undefined) {
      throw new ToolParameterError(
        tool.definition.name,
        descriptor.name,
        'missing_required',
        `${settingWhere(tool.definition.name, descriptor)} is required.`,
      );
    }
  }
}

/**
 * Three-way merge, defaults < saved < updates, strictly validated.
 * A tool whose `canDisable` is false is always enabled; asking to disable it is an error.
 * @throws ToolParameterError on any invalid value.
 */
export function mergeToolSettings(
  tool: RegisteredTool,
  saved?: SavedToolSettings,
  updates?: SavedToolSettings,
): EffectiveToolSettings {
  const defaults = getDefaultToolSettings(tool);
  const toolName = tool.definition.name;
  const parameters = {
    ...defaults.parameters,
    ...(saved?.parameters === undefined ? {} : normalizeToolParameters(tool, saved.parameters)),
    ...(updates?.parameters === undefined ? {} : normalizeToolParameters(tool, updates.parameters)),
  };
  checkRequired(tool, parameters);
  for (const layer of [saved, updates]) {
    if (layer?.enabled !== undefined && typeof layer.enabled !== 'boolean') {
      throw new ToolParameterError(
        toolName,
        'enabled',
        'invalid_type',
        `Tool "${toolName}" enabled must be a boolean, got ${describeValue(layer.enabled)}.`,
      );
    }
  }
  if (updates?.enabled === false && !tool.settings.canDisable) {
    throw new ToolParameterError(
      toolName,
      'enabled',
      'cannot_disable',
      `Tool "${toolName}" cannot be disabled.`,
    );
  }
  const enabled = tool.settings.canDisable ? (updates?.enabled ?? saved?.enabled ?? defaults.enabled) : true;
  return { enabled, parameters };
}

/**
 * The valid part of a stored row: `enabled` if it is a boolean, and each parameter that still passes
 * the policy. Everything else is dropped and reported through `onInvalid`, so a stale or corrupted row
 * can neither break execution nor block a new update.
 */
export function sanitizeSavedSettings(
  tool: RegisteredTool,
  saved: unknown,
  onInvalid: (error: ToolParameterError) => void = () => {},
): SavedToolSettings {
  if (saved === undefined || saved === null) return {};
  const toolName = tool.definition.name;
  if (!isRecord(saved)) {
    onInvalid(
      new ToolParameterError(
        toolName,
        undefined,
        'invalid_type',
        `Saved row of "${toolName}" is not an object.`,
      ),
    );
    return {};
  }
  const result: SavedToolSettings = {};
  if (typeof saved.enabled === 'boolean') result.enabled = saved.enabled;
  else if (saved.enabled !== undefined) {
    onInvalid(
      new ToolParameterError(
        toolName,
        'enabled',
        'invalid_type',
        `Saved "enabled" of "${toolName}" is not a boolean.`,
      ),
    );
  }
  if (saved.parameters !== undefined) {
    const parameters: Record<string, unknown> = {};
    if (!isRecord(saved.parameters)) {
      onInvalid(
        new ToolParameterError(
          toolName,
          undefined,
          'invalid_type',
          `Saved parameters of "${toolName}" are not an object.`,
        ),
      );
    } else {
      for (const [name, value] of Object.entries(saved.parameters)) {
        try {
          Object.assign(parameters, normalizeToolParameters(tool, { [name]: value }));
        } catch (error) {
          if (!(error instanceof ToolParameterError)) throw error;
          onInvalid(error);
        }
      }
    }
    result.parameters = parameters;
  }
  return result;
}

/**
 * The merge for execution: never throws. A saved row that fails validation falls back to defaults
 * one value at a time (a corrupted `timeoutSeconds` does not also forget that the user enabled the
 * tool), and every value dropped is reported through `onInvalid` so the caller can log it.
 */
export function getSafeEffectiveToolSettings(
  tool: RegisteredTool,
  saved?: unknown,
  onInvalid?: (error: ToolParameterError) => void,
): EffectiveToolSettings {
  const defaults = getDefaultToolSettings(tool);
  const valid = sanitizeSavedSettings(tool, saved, onInvalid);
  return {
    enabled: tool.settings.canDisable ? (valid.enabled ?? defaults.enabled) : true,
    parameters: { ...defaults.parameters, ...valid.parameters },
  };
}

/** The definition a model sees for a tool under given settings (honours `buildDefinition`). */
export function getToolDefinition(tool: RegisteredTool, settings: EffectiveToolSettings): ToolDefinition {
  return tool.buildDefinition ? tool.buildDefinition(settings) : tool.definition;
}

/**
 * Filters the enabled tools and produces their definitions. `settings` maps tool name to the saved
 * row (possibly corrupted: each falls back to defaults safely). A tool whose `isAvailable()` returns
 * false (e.g. generate_image with no image provider configured) is left out whatever its settings.
 */
export function getToolDefinitionsForTools(
  tools: readonly RegisteredTool[],
  settings?: Readonly<Record<string, unknown>>,
  onInvalid?: (error: ToolParameterError) => void,
): ToolDefinition[] {
  const definitions: ToolDefinition[] = [];
  for (const tool of tools) {
    if (tool.isAvailable && !tool.isAvailable()) continue;
    const effective = getSafeEffectiveToolSettings(tool, settings?.[tool.definition.name], onInvalid);
    if (effective.enabled) definitions.push(getToolDefinition(tool, effective));
  }
  return definitions;
}
