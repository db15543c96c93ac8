/**
 * Typed setting declarations: a tool states each of its settings once — name (the key), label,
 * description, type, bounds, default — and everything else is derived from that one declaration:
 * `defaultParameters`, the `parameterDescriptors` the settings resolver validates with and the web app
 * renders from, and a typed reader whose values are already the right type and within bounds.
 *
 * A group of settings several tools share (the path policy) is a plain object of declarations, so a
 * tool takes it with one spread: `settings: { ...PATH_ACCESS_SETTINGS, maxResults: setting.integer(…) }`.
 * Key order is the order the settings page shows.
 *
 * A declaration that contradicts itself (a default outside its bounds, `min` above `max`, a select
 * default not among its values) throws when the module declaring it loads, so it never ships.
 */
import type {
  PathListEntry,
  ToolParameterDescriptor,
  ToolParameterType,
} from '../contracts/tool-parameter-descriptor.ts';

interface SettingBase<Type extends ToolParameterType, Value> {
  readonly type: Type;
  readonly label: string;
  readonly description: string;
  readonly default: Value;
}

export interface IntegerSetting extends SettingBase<'integer', number> {
  readonly min: number;
  readonly max: number;
}
export interface NumberSetting extends SettingBase<'number', number> {
  readonly min: number;
  readonly max: number;
}
export type BooleanSetting = SettingBase<'boolean', boolean>;
export type StringSetting = SettingBase<'string', string>;
export interface SelectSetting<Value extends string = string> extends SettingBase<'select', Value> {
  readonly allowedValues: readonly Value[];
}
export type StringListSetting = SettingBase<'string_list', string[]>;
export type PathListSetting = SettingBase<'path_list', PathListEntry[]>;

export type SettingDeclaration =
  | IntegerSetting
  | NumberSetting
  | BooleanSetting
  | StringSetting
  | SelectSetting
  | StringListSetting
  | PathListSetting;

/** A tool's settings: the key is the setting's name. */
export type SettingsDeclaration = Readonly<Record<string, SettingDeclaration>>;

/** The typed values of a declaration: `maxResults` is a `number`, a select is the union of its values. */
export type SettingValues<Settings extends SettingsDeclaration> = {
  readonly [Name in keyof Settings]: Settings[Name]['default'];
};

type Text = { label: string; description: string };

function checkBounds(kind: string, spec: Text & { min: number; max: number; default: number }): void {
  const where = `The ${kind} setting "${spec.label}"`;
  if (!(spec.min <= spec.max)) throw new Error(`${where} has min ${spec.min} above max ${spec.max}.`);
  if (spec.default < spec.min || spec.default > spec.max) {
    throw new Error(`${where} has default ${spec.default} outside ${spec.min}–${spec.max}.`);
  }
}

/** The declaration builders; each checks its declaration at load time. */
export const setting = {
  integer(spec: Text & { min: number; max: number; default: number }): IntegerSetting {
    if (![spec.min, spec.max, spec.default].every(Number.isInteger)) {
      throw new Error(`The integer setting "${spec.label}" has a bound or default that is not an integer.`);
    }
    checkBounds('integer', spec);
    return { type: 'integer', ...spec };
  },
  number(spec: Text & { min: number; max: number; default: number }): NumberSetting {
    checkBounds('number', spec);
    return { type: 'number', ...spec };
  },
  boolean(spec: Text & { default: boolean }): BooleanSetting {
    return { type: 'boolean', ...spec };
  },
  string(spec: Text & { default: string }): StringSetting {
    return { type: 'string', ...spec };
  },
  select<const Value extends string>(
    spec: Text & { allowedValues: readonly Value[]; default: NoInfer<Value> },
  ): SelectSetting<Value> {
    if (!spec.allowedValues.includes(spec.default)) {
      throw new Error(`The select setting "${spec.label}" has a default that is not one of its values.`);
    }
    return { type: 'select', ...spec, allowedValues: [...spec.allowedValues] };
  },
  stringList(spec: Text & { default?: string[] }): StringListSetting {
    return {
      type: 'string_list',
      label: spec.label,
      description: spec.description,
      default: spec.default ?? [],
    };
  },
  pathList(spec: Text & { default?: PathListEntry[] }): PathListSetting {
    return {
      type: 'path_list',
      label: spec.label,
      description: spec.description,
      default: spec.default ?? [],
    };
  },
};

/** The descriptors the settings resolver validates saved values with and the web app renders. */
export function describeSettings(settings: SettingsDeclaration): ToolParameterDescriptor[] {
  return Object.entries(settings).map(([name, declaration]) => {
    const descriptor: ToolParameterDescriptor = {
      name,
      label: declaration.label,
      description: declaration.description,
      type: declaration.type,
      default: structuredClone(declaration.default),
    };
    if (declaration.type === 'integer' || declaration.type === 'number') {
      descriptor.min = declaration.min;
      descriptor.max = declaration.max;
    }
    if (declaration.type === 'select') descriptor.allowedValues = [...declaration.allowedValues];
    return descriptor;
  });
}

/** `defaultParameters`: each setting's default, by name. */
export function defaultSettingValues(settings: SettingsDeclaration): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(settings).map(([name, declaration]) => [name, structuredClone(declaration.default)]),
  );
}

function isPathListEntry(item: unknown): item is PathListEntry {
  return (
    typeof item === 'object' &&
    item !== null &&
    typeof (item as PathListEntry).path === 'string' &&
    typeof (item as PathListEntry).enabled === 'boolean'
  );
}

/**
 * One value as its declaration types it. Effective settings have already passed the settings resolver,
 * so this only matters for a context built by hand: a number is clamped into its bounds (an integer
 * truncated first), and a value of the wrong type reads as the default — stored settings have no
 * model turn to hand an error to.
 */
function readValue(declaration: SettingDeclaration, value: unknown): unknown {
  switch (declaration.type) {
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return declaration.default;
      const numeric = declaration.type === 'integer' ? Math.trunc(value) : value;
      return Math.min(declaration.max, Math.max(declaration.min, numeric));
    }
    case 'boolean':
      return typeof value === 'boolean' ? value : declaration.default;
    case 'string':
      return typeof value === 'string' ? value : declaration.default;
    case 'select':
      return typeof value === 'string' && declaration.allowedValues.includes(value)
        ? value
        : declaration.default;
    case 'string_list':
      return Array.isArray(value)
        ? value.filter((item): item is string => typeof item === 'string')
        : [...declaration.default];
    case 'path_list':
      return Array.isArray(value)
        ? value.filter(isPathListEntry).map((item) => ({ path: item.path, enabled: item.enabled }))
        : structuredClone(declaration.default);
  }
}

/** The typed, bounded values of `settings` read from effective parameters. */
export function readSettingValues<Settings extends SettingsDeclaration>(
  settings: Settings,
  parameters: Readonly<Record<string, unknown>>,
): SettingValues<Settings> {
  const values: Record<string, unknown> = {};
  for (const [name, declaration] of Object.entries(settings)) {
    values[name] = readValue(declaration, parameters[name]);
  }
  return values as SettingValues<Settings>;
}
