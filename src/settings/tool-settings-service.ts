/**
 * Application layer of the Tool Settings API (docs/http-api.md, "Tool settings"): lists a
 * user's tools with their effective settings and applies an update — defaults < saved < update, strictly
 * validated by the settings resolver — persisting only what the user chose (so a later change of a
 * default reaches users who never touched that setting). Emits a `ToolSettingsEvents` notice after each
 * successful update. Knows nothing of HTTP: failures are `ToolError('unknown_tool')` and
 * `ToolParameterError`, which `src/http/` maps to statuses.
 */
import type { ToolSettingsDescriptor, ToolSettingsUpdate } from '../contracts/tool-settings-descriptor.ts';
import { ToolError, ToolParameterError } from '../tools/errors.ts';
import { defaultToolRegistry, type ToolRegistry } from '../tools/registry.ts';
import { toolSettingsMetadataOf } from '../tools/tool-settings-metadata.ts';
import {
  getSafeEffectiveToolSettings,
  mergeToolSettings,
  normalizeToolParameters,
  sanitizeSavedSettings,
} from '../tools/tool-settings-resolver.ts';
import { traitsOf } from '../tools/tool-traits.ts';
import type { RegisteredTool, SavedToolSettings } from '../tools/types.ts';
import type { UserToolSource } from '../tools/user-tool-source.ts';
import type { ToolSettingsEvents } from './tool-settings-events.ts';
import type { ToolSettingsRepository } from './tool-settings-repository.ts';

export interface ToolSettingsServiceOptions {
  repository: ToolSettingsRepository;
  registry?: ToolRegistry;
  /** Each user's own tools (builtins plus external ones); wins over `registry` when given. */
  toolSource?: UserToolSource;
  events?: ToolSettingsEvents;
  /** Receives each invalid stored value that was replaced by its default (default: console.warn). */
  onInvalidSettings?: (userId: string, error: ToolParameterError) => void;
}

/** Longest tool name echoed back in an error message (names come from URLs). */
const MAX_ECHOED_NAME_LENGTH = 80;

export class ToolSettingsService {
  readonly #repository: ToolSettingsRepository;
  readonly #registry: ToolRegistry;
  readonly #toolSource: UserToolSource | undefined;
  readonly #events: ToolSettingsEvents | undefined;
  readonly #onInvalid: (userId: string, error: ToolParameterError) => void;

  constructor(options: ToolSettingsServiceOptions) {
    this.#repository = options.repository;
    this.#registry = options.registry ?? defaultToolRegistry;
    this.#toolSource = options.toolSource;
    this.#events = options.events;
    this.#onInvalid =
      options.onInvalidSettings ??
      ((userId, error) =>
        console.warn(`[mango] user ${userId}: invalid saved setting ignored: ${error.message}`));
  }

  /** Every registered tool, in registration order, with the user's effective settings. */
  async list(userId: string): Promise<ToolSettingsDescriptor[]> {
    const [saved, registry] = await Promise.all([this.#repository.getAll(userId), this.#registryOf(userId)]);
    return registry.list().map((tool) => {
      const effective = getSafeEffectiveToolSettings(tool, saved[tool.definition.name], (error) =>
        this.#onInvalid(userId, error),
      );
      return describeTool(tool, effective.enabled, effective.parameters);
    });
  }

  /**
   * Applies `update` to the user's settings of `toolName` and returns the new descriptor.
   * @throws ToolError (`unknown_tool`) when no such tool is registered.
   * @throws ToolParameterError when a value is invalid or the tool cannot be disabled.
   */
  async update(
    userId: string,
    toolName: string,
    update: ToolSettingsUpdate,
  ): Promise<ToolSettingsDescriptor> {
    const tool = (await this.#registryOf(userId)).get(toolName);
    if (!tool) {
      const shown =
        toolName.length > MAX_ECHOED_NAME_LENGTH ? `${toolName.slice(0, MAX_ECHOED_NAME_LENGTH)}…` : toolName;
      throw new ToolError('unknown_tool', `No tool is named ${JSON.stringify(shown)}.`);
    }
    if (update.enabled === true && tool.isAvailable && !tool.isAvailable()) {
      throw new ToolParameterError(
        toolName,
        'enabled',
        'tool_unavailable',
        `${tool.settings.title} cannot be enabled: ${tool.unavailableReason?.() ?? 'it is not available in this deployment.'}`,
      );
    }
    const change = (saved: unknown): SavedToolSettings => {
      const current = sanitizeSavedSettings(tool, saved, (error) => this.#onInvalid(userId, error));
      mergeToolSettings(tool, current, update); // validates update (types, ranges, cannot_disable, required)
      const next: SavedToolSettings = {};
      const enabled = update.enabled ?? current.enabled;
      if (enabled !== undefined) next.enabled = enabled;
      if (current.parameters !== undefined || update.parameters !== undefined) {
        next.parameters = {
          ...current.parameters,
          ...(update.parameters === undefined ? {} : normalizeToolParameters(tool, update.parameters)),
        };
      }
      return next;
    };
    return this.#store(userId, tool, change);
  }

  /**
   * Adds `entry` to the user's `string_list` setting `setting` of `toolName` (once: an entry already
   * there is not repeated), atomically when the repository can update in place.
   * @throws ToolError (`unknown_tool`), ToolParameterError (no such list setting).
   */
  async addListEntry(
    userId: string,
    toolName: string,
    setting: string,
    entry: string,
  ): Promise<ToolSettingsDescriptor> {
    const tool = (await this.#registryOf(userId)).get(toolName);
    if (!tool) throw new ToolError('unknown_tool', `No tool is named ${JSON.stringify(toolName)}.`);
    const descriptor = toolSettingsMetadataOf(tool).parameterDescriptors.find(
      (item) => item.name === setting,
    );
    if (descriptor?.type !== 'string_list') {
      throw new ToolParameterError(
        toolName,
        setting,
        'unknown_parameter',
        `Tool "${toolName}" has no list setting "${setting}".`,
      );
    }
    const change = (saved: unknown): SavedToolSettings => {
      const current = sanitizeSavedSettings(tool, saved, (error) => this.#onInvalid(userId, error));
      const effective = mergeToolSettings(tool, current);
      const list = effective.parameters[setting] as string[];
      return {
        ...current,
        parameters: { ...current.parameters, [setting]: list.includes(entry) ? list : [...list, entry] },
      };
    };
    return this.#store(userId, tool, change);
  }

  /**
   * Applies `change` to the user's stored row of `tool` (in place and atomically when the repository
   * can, else read then write), tells listeners, and describes the result.
   */
  async #store(
    userId: string,
    tool: RegisteredTool,
    change: (saved: unknown) => SavedToolSettings,
  ): Promise<ToolSettingsDescriptor> {
    const toolName = tool.definition.name;
    let stored: SavedToolSettings;
    if (this.#repository.update) {
      stored = await this.#repository.update(userId, toolName, change);
    } else {
      stored = change(await this.#repository.get(userId, toolName));
      await this.#repository.put(userId, toolName, stored);
    }
    this.#events?.emit(userId, toolName);
    const effective = mergeToolSettings(tool, stored);
    return describeTool(tool, effective.enabled, effective.parameters);
  }

  /** The user's tools: their own registry when a source gives one, else the shared one. */
  #registryOf(userId: string): Promise<ToolRegistry> {
    return this.#toolSource?.registryFor(userId) ?? Promise.resolve(this.#registry);
  }
}

function availabilityOf(tool: RegisteredTool): {
  available: boolean;
  unavailableReason?: string;
  notice?: string;
} {
  if (!tool.isAvailable || tool.isAvailable()) {
    const notice = tool.notice?.();
    return notice === undefined ? { available: true } : { available: true, notice };
  }
  const reason = tool.unavailableReason?.();
  return reason === undefined ? { available: false } : { available: false, unavailableReason: reason };
}

function describeTool(
  tool: RegisteredTool,
  enabled: boolean,
  parameters: Record<string, unknown>,
): ToolSettingsDescriptor {
  const traits = traitsOf(tool);
  return {
    name: tool.definition.name,
    title: tool.settings.title,
    description: tool.settings.description,
    category: tool.settings.category,
    enabled,
    canDisable: tool.settings.canDisable,
    ...availabilityOf(tool),
    confirmBeforeEnable: traits.confirmBeforeEnable,
    readOnly: traits.readOnly,
    resultView: traits.resultView,
    parameters,
    parameterDescriptors: structuredClone(toolSettingsMetadataOf(tool).parameterDescriptors),
  };
}
