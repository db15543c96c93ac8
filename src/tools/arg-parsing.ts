/**
 * Readers for model-supplied tool arguments and for stored settings.
 *
 * Model arguments are rejected when malformed, never substituted: `null` and an absent key
 * mean the same thing — a Responses-strict model sends `null` for every optional it leaves out — but a
 * value that is present and of the wrong type raises `ToolArgumentError`, never a silent default.
 *
 * Settings readers (`clampIntegerSetting`, `getStringSetting`, …) do the opposite on purpose: stored
 * settings have no model turn to hand a correctable error to, so they coerce to their defaults.
 */
import { ToolArgumentError } from './errors.ts';
import type { PathListEntry } from './types.ts';

export type ToolArguments = Record<string, unknown>;

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') {
    const shown = value.length > 60 ? `${value.slice(0, 60)}…` : value;
    return `the string ${JSON.stringify(shown)}`;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return `a ${typeof value}`;
}

function wrongType(name: string, expected: string, value: unknown): ToolArgumentError {
  return new ToolArgumentError(`Argument "${name}" must be ${expected}, got ${describeValue(value)}.`);
}

function missing(name: string, expected: string): ToolArgumentError {
  return new ToolArgumentError(`Argument "${name}" is required (${expected}).`);
}

/**
 * The argument object itself: `undefined`/`null` (a call with no arguments) reads as `{}`; anything
 * that is not a plain object is refused.
 */
export function readArgumentsObject(args: unknown): ToolArguments {
  if (args === undefined || args === null) return {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    throw new ToolArgumentError(`Tool arguments must be a JSON object, got ${describeValue(args)}.`);
  }
  return args as ToolArguments;
}

function present(args: ToolArguments, name: string): unknown {
  const value = args[name];
  return value === null ? undefined : value;
}

export interface StringRules {
  /** Inclusive length bounds; enforced here because Responses-strict schemas drop them. */
  minLength?: number;
  maxLength?: number;
  /** Human words for what the string holds, used in messages ("an IANA time zone name"). */
  meaning?: string;
}

export function optionalString(
  args: ToolArguments,
  name: string,
  rules: StringRules = {},
): string | undefined {
  const value = present(args, name);
  if (value === undefined) return undefined;
  const expected = rules.meaning ? `a string (${rules.meaning})` : 'a string';
  if (typeof value !== 'string') throw wrongType(name, expected, value);
  if (rules.minLength !== undefined && value.length < rules.minLength) {
    throw new ToolArgumentError(
      `Argument "${name}" must be at least ${rules.minLength} character${rules.minLength === 1 ? '' : 's'} long.`,
    );
  }
  if (rules.maxLength !== undefined && value.length > rules.maxLength) {
    throw new ToolArgumentError(
      `Argument "${name}" must be at most ${rules.maxLength} characters long, got ${value.length}.`,
    );
  }
  return value;
}

export function requireString(args: ToolArguments, name: string, rules: StringRules = {}): string {
  const value = optionalString(args, name, rules);
  if (value === undefined) throw missing(name, rules.meaning ? `a string: ${rules.meaning}` : 'a string');
  return value;
}

export interface NumberRules {
  min?: number;
  max?: number;
}

/** A present number `isAccepted` agrees with (integers, finite numbers), within the rules' bounds. */
function readNumberArgument(
  args: ToolArguments,
  name: string,
  rules: NumberRules,
  isAccepted: (value: number) => boolean,
  expected: string,
): number | undefined {
  const value = present(args, name);
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !isAccepted(value)) throw wrongType(name, expected, value);
  if (rules.min !== undefined && value < rules.min) {
    throw new ToolArgumentError(`Argument "${name}" must be at least ${rules.min}, got ${value}.`);
  }
  if (rules.max !== undefined && value > rules.max) {
    throw new ToolArgumentError(`Argument "${name}" must be at most ${rules.max}, got ${value}.`);
  }
  return value;
}

export function optionalInteger(
  args: ToolArguments,
  name: string,
  rules: NumberRules = {},
): number | undefined {
  return readNumberArgument(args, name, rules, Number.isInteger, 'an integer');
}

export function requireInteger(args: ToolArguments, name: string, rules: NumberRules = {}): number {
  const value = optionalInteger(args, name, rules);
  if (value === undefined) throw missing(name, 'an integer');
  return value;
}

export function optionalNumber(
  args: ToolArguments,
  name: string,
  rules: NumberRules = {},
): number | undefined {
  return readNumberArgument(args, name, rules, Number.isFinite, 'a finite number');
}

export function optionalBoolean(args: ToolArguments, name: string): boolean | undefined {
  const value = present(args, name);
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw wrongType(name, 'a boolean (true or false, not a string)', value);
  return value;
}

export function optionalEnum<const T extends string>(
  args: ToolArguments,
  name: string,
  values: readonly T[],
): T | undefined {
  const value = present(args, name);
  if (value === undefined) return undefined;
  const expected = `one of ${values.map((item) => JSON.stringify(item)).join(', ')}`;
  if (typeof value !== 'string') throw wrongType(name, expected, value);
  if (!(values as readonly string[]).includes(value)) {
    throw new ToolArgumentError(`Argument "${name}" must be ${expected}, got ${JSON.stringify(value)}.`);
  }
  return value as T;
}

export function optionalStringArray(args: ToolArguments, name: string): string[] | undefined {
  const value = present(args, name);
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw wrongType(name, 'an array of strings', value);
  value.forEach((item, index) => {
    if (typeof item !== 'string') throw wrongType(`${name}[${index}]`, 'a string', item);
  });
  return [...value] as string[];
}

// ---- Settings readers: coerce, never throw ----

export interface IntegerSettingRules {
  min: number;
  max: number;
  fallback: number;
}

/** An integer setting clamped into [min, max]; a non-integer falls back to `fallback`. */
export function clampIntegerSetting(
  parameters: Readonly<Record<string, unknown>>,
  name: string,
  rules: IntegerSettingRules,
): number {
  const value = parameters[name];
  if (typeof value !== 'number' || !Number.isFinite(value)) return rules.fallback;
  return Math.min(rules.max, Math.max(rules.min, Math.trunc(value)));
}

/** A string setting; anything else falls back. With `allowed`, a value outside it falls back too. */
export function getStringSetting(
  parameters: Readonly<Record<string, unknown>>,
  name: string,
  fallback: string,
  allowed?: readonly string[],
): string {
  const value = parameters[name];
  if (typeof value !== 'string') return fallback;
  if (allowed && !allowed.includes(value)) return fallback;
  return value;
}

export function getBooleanSetting(
  parameters: Readonly<Record<string, unknown>>,
  name: string,
  fallback: boolean,
): boolean {
  const value = parameters[name];
  return typeof value === 'boolean' ? value : fallback;
}

export function getStringListSetting(parameters: Readonly<Record<string, unknown>>, name: string): string[] {
  const value = parameters[name];
  if (!Array.isArray(value)) return [];
  return value.filter((item): item is string => typeof item === 'string');
}

/** The enabled entries of a path list setting; malformed entries are ignored. */
export function getEnabledPathListSetting(
  parameters: Readonly<Record<string, unknown>>,
  name: string,
): string[] {
  const value = parameters[name];
  if (!Array.isArray(value)) return [];
  return value
    .filter(
      (item): item is PathListEntry =>
        typeof item === 'object' &&
        item !== null &&
        typeof (item as PathListEntry).path === 'string' &&
        (item as PathListEntry).enabled === true,
    )
    .map((item) => item.path);
}
