/**
 * Test-only inverse of `toStrictSchema`, written independently of it: drops the `null`s the strict dialect
 * added and the `required` entries it forced, so a round trip can be compared with the source.
 *
 * The comparison side (`withoutLengthBounds`) removes `minLength`/`maxLength` and spells out the two
 * defaults the strict dialect makes explicit on object nodes: an absent `required` is `[]` and an absent
 * `additionalProperties` is `false` (every tool schema closes its objects; `executeTool` relies on it).
 */
import type { JsonSchema, JsonSchemaType } from '../../src/contracts/json-schema.ts';

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isObjectNode(schema: JsonSchema): boolean {
  const type = schema.type;
  return (Array.isArray(type) ? type.includes('object') : type === 'object') || isSchema(schema.properties);
}

function mapChildren(schema: JsonSchema, map: (child: JsonSchema) => JsonSchema): JsonSchema {
  const result: JsonSchema = { ...schema };
  if (isSchema(schema.properties)) {
    result.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, child]) => [name, map(child)]),
    );
  }
  if (isSchema(schema.items)) result.items = map(schema.items);
  if (isSchema(schema.additionalProperties)) result.additionalProperties = map(schema.additionalProperties);
  return result;
}

/** Whether the strict dialect made this property nullable, and the property without that `null`. */
function dropAddedNull(property: JsonSchema): { wasNullable: boolean; schema: JsonSchema } {
  if (!Array.isArray(property.type) || !property.type.includes('null')) {
    return { wasNullable: false, schema: property };
  }
  const types = property.type.filter((type): type is JsonSchemaType => type !== 'null');
  const schema: JsonSchema = { ...property, type: types.length === 1 ? types[0] : types };
  if (Array.isArray(property.enum)) schema.enum = property.enum.filter((value) => value !== null);
  return { wasNullable: true, schema };
}

export function relaxStrictSchema(strict: JsonSchema): JsonSchema {
  const result = mapChildren(strict, relaxStrictSchema);
  if (!isObjectNode(result) || !isSchema(result.properties)) return result;
  const optional = new Set<string>();
  const properties: Record<string, JsonSchema> = {};
  for (const [name, property] of Object.entries(result.properties as Record<string, JsonSchema>)) {
    const { wasNullable, schema } = dropAddedNull(property);
    if (wasNullable) optional.add(name);
    properties[name] = schema;
  }
  result.properties = properties;
  result.required = (result.required ?? []).filter((name) => !optional.has(name));
  return result;
}

export function withoutLengthBounds(source: JsonSchema): JsonSchema {
  const result = mapChildren(source, withoutLengthBounds);
  delete result.minLength;
  delete result.maxLength;
  if (isObjectNode(result)) {
    result.required ??= [];
    result.additionalProperties ??= false;
  }
  return result;
}
