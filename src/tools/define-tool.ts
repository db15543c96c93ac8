/**
 * `defineTool`: a tool declared once, in one object, becomes the `RegisteredTool` the registry, the
 * loop, MCP, the provider mappings and the web app read — `registerTool()` is unchanged.
 *
 * - `parameters` is a TypeBox object schema. The advertised JSON Schema is its plain copy
 *   (tool-schema.ts), which `executeTool` validates every call against before `execute` runs, so
 *   `execute` receives the arguments as `Static<typeof parameters>`: absent optionals are `undefined`
 *   (a `null` the schema does not accept has been removed), every type and bound already holds.
 *   `execute` checks only what a schema cannot state (cross-field rules, meaning).
 * - `settings` declares each setting once (tool-settings.ts); `defaultParameters` and
 *   `parameterDescriptors` are derived from it, and `execute` gets the values typed and bounded as its
 *   third argument.
 * - `traits` are required: a tool says what it is (read-only, destructive, confirm before enabling…);
 *   there is no list of names elsewhere to add it to.
 * - `advertise` (optional) changes the description or parameters the model is offered under a user's
 *   settings (a maximum that follows a setting); the validated schema stays `parameters`.
 */
import type { Static, TObject } from '@sinclair/typebox';
import type { JsonSchema } from '../contracts/json-schema.ts';
import type { ToolCategory } from '../contracts/tool-category.ts';
import type { ToolDefinition } from '../contracts/tool-definition.ts';
import { toToolParameters } from './tool-schema.ts';
import {
  defaultSettingValues,
  describeSettings,
  readSettingValues,
  type SettingsDeclaration,
  type SettingValues,
} from './tool-settings.ts';
import type { ToolTraits } from './tool-traits.ts';
import type { EffectiveToolSettings, RegisteredTool, ToolContext } from './types.ts';

/** What a tool declares; see the module header. */
export interface ToolDeclaration<Parameters extends TObject, Settings extends SettingsDeclaration> {
  /** 1–64 letters, digits, `_` or `-`; the name models call it by. */
  name: string;
  /** What the tool does, written for the model. */
  description: string;
  parameters: Parameters;
  traits: ToolTraits;
  /** The tools page: its title, one sentence for users, and its group. */
  title: string;
  summary: string;
  category: ToolCategory;
  enabledByDefault: boolean;
  canDisable: boolean;
  /** The user-tunable settings, by name, in the order the settings page shows them. */
  settings?: Settings;
  execute: (
    args: Static<Parameters>,
    context: ToolContext,
    settings: SettingValues<Settings>,
  ) => Promise<unknown>;
  /** What the model is offered under given settings, where it differs from `description`/`parameters`. */
  advertise?: (settings: SettingValues<Settings>) => { description?: string; parameters?: TObject };
  /** See `RegisteredTool` for each of these. */
  isAvailable?: () => boolean;
  unavailableReason?: () => string | undefined;
  notice?: () => string | undefined;
  reportsPartialResultOnAbort?: boolean;
  resultBudgetBytes?: number;
  outputSchema?: JsonSchema;
}

/** The `RegisteredTool` for a declaration; register it with `registerTool`. */
export function defineTool<
  const Parameters extends TObject,
  const Settings extends SettingsDeclaration = Record<never, never>,
>(declaration: ToolDeclaration<Parameters, Settings>): RegisteredTool {
  const settings = (declaration.settings ?? {}) as Settings;
  const definition: ToolDefinition = {
    name: declaration.name,
    description: declaration.description,
    parameters: toToolParameters(declaration.parameters, declaration.name),
  };
  const read = (parameters: Readonly<Record<string, unknown>>) => readSettingValues(settings, parameters);
  const { advertise } = declaration;
  const tool: RegisteredTool = {
    definition,
    settings: {
      title: declaration.title,
      description: declaration.summary,
      category: declaration.category,
      enabledByDefault: declaration.enabledByDefault,
      canDisable: declaration.canDisable,
      defaultParameters: defaultSettingValues(settings),
      parameterDescriptors: describeSettings(settings),
    },
    traits: { ...declaration.traits },
    // executeTool validated `args` against `definition.parameters`, which is `parameters` itself.
    execute: (args, context) =>
      declaration.execute(args as Static<Parameters>, context, read(context.settings.parameters)),
  };
  if (advertise) {
    tool.buildDefinition = (effective: EffectiveToolSettings): ToolDefinition => {
      const advertised = advertise(read(effective.parameters));
      return {
        name: declaration.name,
        description: advertised.description ?? declaration.description,
        parameters: advertised.parameters
          ? toToolParameters(advertised.parameters, declaration.name)
          : structuredClone(definition.parameters),
      };
    };
  }
  if (declaration.isAvailable) tool.isAvailable = declaration.isAvailable;
  if (declaration.unavailableReason) tool.unavailableReason = declaration.unavailableReason;
  if (declaration.notice) tool.notice = declaration.notice;
  if (declaration.reportsPartialResultOnAbort) tool.reportsPartialResultOnAbort = true;
  if (declaration.resultBudgetBytes !== undefined) tool.resultBudgetBytes = declaration.resultBudgetBytes;
  if (declaration.outputSchema) tool.outputSchema = declaration.outputSchema;
  return tool;
}
