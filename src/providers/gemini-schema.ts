/**
 * The Gemini dialect of a tool's parameter schema, one of the tool mapper's dialects.
 *
 * Gemini's function declarations accept an OpenAPI-3 subset of JSON Schema, not all of it: a request that
 * carries an unknown keyword or a type array is refused as a whole. `toGeminiSchema` therefore keeps only
 * the keywords of that subset and rewrites the two constructs it spells differently:
 * - `type: ['string', 'null']` → `type: 'string'` (one type per node; Gemini treats an absent optional as
 *   "not sent", which is what `null` means to our argument validation); several non-null types become an
 *   `anyOf` of single-typed nodes;
 * - `null` is removed from `enum` (Gemini enums hold strings only), and `const: x` becomes `enum: [x]`;
 * - `oneOf` is sent as `anyOf` (the subset has only `anyOf`; the executor still validates exactly).
 * Removed keywords, and why: `additionalProperties`, `patternProperties`, `$schema`, `$id`, `$ref`,
 * `$defs`, `definitions`, `allOf`, `not`, `if`/`then`/`else`, `examples`, `uniqueItems`, `prefixItems` and
 * every other keyword outside the subset — Gemini rejects them as unknown fields. The executor validates
 * the arguments in full regardless (rejecting undeclared keys), so nothing the model sends goes unchecked.
 * Pure: never mutates its input.
 */
import type { JsonSchema, JsonSchemaType } from '../contracts/json-schema.ts';

/** The OpenAPI-subset keywords Gemini accepts on a schema node. */
const GEMINI_KEYWORDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'items',
  'minItems',
  'maxItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'default',
  'anyOf',
  'propertyOrdering',
]);

function isSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Converts one schema node (and its children) to the Gemini subset. */
export function toGeminiSchema(schema: JsonSchema): JsonSchema {
  const source: JsonSchema = { ...schema };
  if ('const' in source && source.enum === undefined) source.enum = [source.const];
  if (Array.isArray(source.oneOf) && source.anyOf === undefined) source.anyOf = source.oneOf;

  const result: JsonSchema = {};
  for (const [keyword, value] of Object.entries(source)) {
    if (!GEMINI_KEYWORDS.has(keyword)) continue;
    if (keyword === 'properties' && isSchemaObject(value)) {
      const properties: Record<string, JsonSchema> = {};
      for (const [name, child] of Object.entries(value)) {
        if (isSchemaObject(child)) properties[name] = toGeminiSchema(child);
      }
      result.properties = properties;
    } else if (keyword === 'items' && isSchemaObject(value)) {
      result.items = toGeminiSchema(value);
    } else if (keyword === 'anyOf' && Array.isArray(value)) {
      result.anyOf = value.filter(isSchemaObject).map(toGeminiSchema);
    } else if (keyword === 'enum' && Array.isArray(value)) {
      result.enum = value.filter((entry) => entry !== null).map((entry) => structuredClone(entry));
    } else {
      result[keyword] = structuredClone(value);
    }
  }

  if (Array.isArray(result.type)) {
    const types = result.type.filter((type): type is JsonSchemaType => type !== 'null');
    if (types.length <= 1) {
      result.type = types[0] ?? 'null';
    } else {
      delete result.type;
      result.anyOf = types.map((type) => ({ type }));
    }
  }
  return result;
}
