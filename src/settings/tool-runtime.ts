/**
 * `getEnabledToolRuntime` (docs/tools.md, "How every call runs"): load a user's saved rows, merge them with
 * defaults (a corrupted row falls back to defaults and is logged, never breaking a chat), and produce
 * the enabled `ToolDefinition[]` together with the rows `executeTool` needs.
 */

import type { ToolDefinition } from '../contracts/tool-definition.ts';
import type { ReachableSet } from '../tools/access/reachable-set.ts';
import type { ToolParameterError } from '../tools/errors.ts';
import { defaultToolRegistry, type ToolRegistry } from '../tools/registry.ts';
import { getToolDefinitionsForTools } from '../tools/tool-settings-resolver.ts';
import type { UserToolSource } from '../tools/user-tool-source.ts';
import type { ToolSettingsRepository } from './tool-settings-repository.ts';

export interface EnabledToolRuntime {
  /** What the model is offered, in registration order. */
  definitions: ToolDefinition[];
  /** The user's raw saved rows by tool name, to pass to `executeTool` as `savedSettings`. */
  savedSettings: Record<string, unknown>;
  /**
   * The user's tools the definitions came from; the turn looks its calls up here (absent: the
   * registry of the turn's execute options, else the process-wide one).
   */
  registry?: ToolRegistry;
}

export interface ToolRuntimeOptions {
  registry?: ToolRegistry;
  /** The user's own tools (builtins plus external ones); wins over `registry` when given. */
  toolSource?: UserToolSource;
  /** The chat's reachable set, handed to `toolSource` (absent: the settings page's view). */
  reachable?: ReachableSet;
  onInvalidSettings?: (error: ToolParameterError) => void;
}

export async function getEnabledToolRuntime(
  repository: ToolSettingsRepository,
  userId: string,
  options: ToolRuntimeOptions = {},
): Promise<EnabledToolRuntime> {
  const [savedSettings, registry] = await Promise.all([
    repository.getAll(userId),
    options.toolSource?.registryFor(userId, options.reachable) ?? options.registry ?? defaultToolRegistry,
  ]);
  const definitions = getToolDefinitionsForTools(
    registry.list(),
    savedSettings,
    options.onInvalidSettings ??
      ((error) => console.warn(`[mango] user ${userId}: invalid saved setting ignored: ${error.message}`)),
  );
  return { definitions, savedSettings, registry };
}
