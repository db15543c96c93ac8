/**
 * TypeBox schemas as the plain JSON Schema tools advertise: `toToolParameters` copies a TypeBox object
 * schema without TypeBox's symbol keys, always with `required` (empty when nothing is) and
 * `additionalProperties: false` unless the schema opens it, and refuses — when the declaring module
 * loads — any combinator OpenAI's strict mode cannot take (`anyOf`, `oneOf`, `allOf`, `not`, `$ref`).
 * TypeBox spells a union of literals as `anyOf`; `StringEnum` spells it as the `enum` strict mode accepts.
 */
import { type TObject, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';
import type { JsonSchema } from '../contracts/json-schema.ts';

/** Keywords OpenAI's strict mode refuses anywhere in a schema; a tool using one would lose strict mode. */
const REFUSED_COMBINATORS = ['anyOf', 'oneOf', 'allOf', 'not', '$ref'] as const;

/** Keywords whose values are data, copied as they are (structuredClone drops symbol keys too). */
const LITERAL_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);

/** A string that is one of `values`, as `{type: 'string', enum}`; its static type is their union. */
export function StringEnum<const Values extends readonly string[]>(
  values: Values,
  options: { description?: string } = {},
): TUnsafe<Values[number]> {
  return Type.Unsafe<Values[number]>({ ...options, type: 'string', enum: [...values] });
}

/**
 * A deep copy of `value` keeping only string keys (TypeBox marks its schemas with symbol keys).
 * `names` is true for a map whose keys are property names — data, never keywords.
 */
function copyPlain(value: unknown, toolName: string, path: string, names = false): unknown {
  if (Array.isArray(value)) return value.map((item, index) => copyPlain(item, toolName, `${path}/${index}`));
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (names) {
      copy[key] = copyPlain(child, toolName, `${path}/${key}`);
      continue;
    }
    if (LITERAL_KEYWORDS.has(key)) {
      copy[key] = structuredClone(child);
      continue;
    }
    if ((REFUSED_COMBINATORS as readonly string[]).includes(key)) {
      throw new Error(
        `Tool "${toolName}" declares "${key}" at ${path || '/'} in its parameters; OpenAI's strict mode refuses it. Use StringEnum for a choice of strings, or one type per argument.`,
      );
    }
    copy[key] = copyPlain(child, toolName, `${path}/${key}`, key === 'properties');
  }
  return copy;
}

/** The plain JSON Schema of a tool's arguments (see the module header). */
export function toToolParameters(schema: TObject, toolName: string): JsonSchema {
  const plain = copyPlain(schema as TSchema, toolName, '') as JsonSchema;
  return {
    ...plain,
    required: plain.required ?? [],
    additionalProperties: plain.additionalProperties ?? false,
  };
}
