/**
 * The two readers left after argument validation became central (argument-validator.ts) and settings
 * became typed (tool-settings.ts):
 *
 * - `readArgumentsObject`: a call's arguments are one JSON object; `undefined`/`null` (a call with no
 *   arguments) reads as `{}`, anything else is a `ToolArgumentError` naming what was received.
 * - `getEnabledPathListSetting`: the enabled entries of a path list setting, for the access policy,
 *   which reads the shared path settings of whichever tool is running. It coerces rather than throws:
 *   stored settings have no model turn to hand a correctable error to.
 */

import type { PathListEntry } from '../contracts/tool-parameter-descriptor.ts';
import { ToolArgumentError } from './errors.ts';

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

/** The argument object itself; anything that is not a plain object is refused. */
export function readArgumentsObject(args: unknown): ToolArguments {
  if (args === undefined || args === null) return {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    throw new ToolArgumentError(`Tool arguments must be a JSON object, got ${describeValue(args)}.`);
  }
  return args as ToolArguments;
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
