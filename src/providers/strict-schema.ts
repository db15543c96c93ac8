/**
 * The OpenAI Responses strict dialect, derived so that optional arguments stay optional.
 *
 * Tools author plain JSON Schema: a genuine optional has one `type` and is absent from `required`, and
 * `minLength`/`maxLength` stay on the source so Gemini and Anthropic advertise them. Responses strict mode
 * has no optional keys, so `toStrictSchema` derives that dialect at the boundary:
 * - every `type: object` node gets `additionalProperties: false` (unless the source keeps it open with
 *   `true` or a schema, which stays open and so is not strict) and lists every property in `required`;
 * - a property that was optional becomes nullable: `type: ['string', 'null']`, and `null` joins its `enum`
 *   (a typed `const: x` becomes `enum: [x, null]`);
 * - `minLength`/`maxLength` are dropped (strict mode refuses them; the executor still enforces them), and
 *   so is a `format` outside strict mode's allowlist (`uri`…);
 * - every other keyword (`minimum`, `maximum`, `enum`, `pattern`, `format`, `minItems`, `maxItems`…) is
 *   kept, and literal values (`const`, `enum`, `default`, `examples`) are copied verbatim;
 * - property *names* are data, never keywords: a property called `maxLength` or `not` is untouched.
 *
 * Both functions are pure: they never mutate their input and the output shares no object with it.
 */
import type { JsonSchema, JsonSchemaType } from '../contracts/json-schema.ts';

/** Keywords whose value is one schema. */
const SINGLE_SCHEMA_KEYWORDS = ['items', 'not', 'additionalItems', 'contains', 'if', 'then', 'else'] as const;
/** Keywords whose value is an array of schemas. */
const SCHEMA_ARRAY_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
/** Keywords whose value maps names (data) to schemas. */
const SCHEMA_MAP_KEYWORDS = ['properties', '$defs', 'definitions', 'patternProperties'] as const;
/** Keywords strict mode refuses anywhere in the tree; a request that uses one is refused whole. */
const STRICT_FORBIDDEN_KEYWORDS = [
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  '$ref',
  'minLength',
  'maxLength',
] as const;
/** Keywords `toStrictSchema` drops; the executor keeps enforcing them. */
const DROPPED_KEYWORDS = new Set(['minLength', 'maxLength']);
/**
 * The string formats strict mode accepts (OpenAI "Structured outputs: supported properties"); any other
 * (`uri`, common in MCP schemas) makes the API refuse the whole request ("'uri' is not a valid format").
 */
const STRICT_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);

function hasRefusedFormat(schema: JsonSchema): boolean {
  return typeof schema.format === 'string' && !STRICT_FORMATS.has(schema.format);
}

function isSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasType(schema: JsonSchema, type: JsonSchemaType): boolean {
  return Array.isArray(schema.type) ? schema.type.includes(type) : schema.type === type;
}

function isObjectNode(schema: JsonSchema): boolean {
  return hasType(schema, 'object') || (schema.type === undefined && isSchemaObject(schema.properties));
}

/**
 * Visits every sub-schema of `schema` (one level down), through schema-bearing keywords only; literal
 * payloads (`enum`, `const`, `default`, `examples`) and property names are never treated as schemas.
 */
function mapChildSchemas(schema: JsonSchema, map: (child: JsonSchema) => JsonSchema): JsonSchema {
  const result: JsonSchema = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if ((SINGLE_SCHEMA_KEYWORDS as readonly string[]).includes(keyword) && isSchemaObject(value)) {
      result[keyword] = map(value);
    } else if (keyword === 'additionalProperties' && isSchemaObject(value)) {
      result[keyword] = map(value);
    } else if ((SCHEMA_ARRAY_KEYWORDS as readonly string[]).includes(keyword) && Array.isArray(value)) {
      result[keyword] = value.map((child) => (isSchemaObject(child) ? map(child) : structuredClone(child)));
    } else if ((SCHEMA_MAP_KEYWORDS as readonly string[]).includes(keyword) && isSchemaObject(value)) {
      const children: Record<string, unknown> = {};
      for (const [name, child] of Object.entries(value)) {
        children[name] = isSchemaObject(child) ? map(child) : structuredClone(child);
      }
      result[keyword] = children;
    } else {
      result[keyword] = structuredClone(value);
    }
  }
  return result;
}

/** A copy of `schema` that also accepts `null`: the strict dialect's spelling of "optional". */
function makeNullable(schema: JsonSchema): JsonSchema {
  const result: JsonSchema = { ...schema };
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    result.type = types.includes('null') ? [...types] : [...types, 'null'];
  } else if (Array.isArray(schema.anyOf)) {
    result.anyOf = [...schema.anyOf, { type: 'null' }];
    return result;
  } else if (schema.enum === undefined && schema.const === undefined) {
    return { anyOf: [schema, { type: 'null' }] };
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) result.enum = [...schema.enum, null];
  if ('const' in schema && schema.type === undefined) return { anyOf: [schema, { type: 'null' }] };
  if ('const' in schema && result.enum === undefined) {
    // A const would still refuse the null its nullable type now allows: spell it as an enum.
    delete result.const;
    result.enum = [schema.const, null];
  }
  return result;
}

function strictNode(schema: JsonSchema): JsonSchema {
  const mapped = mapChildSchemas(schema, strictNode);
  for (const keyword of DROPPED_KEYWORDS) delete mapped[keyword];
  if (hasRefusedFormat(mapped)) delete mapped.format;
  if (!isObjectNode(mapped)) return mapped;

  if (mapped.additionalProperties === undefined || mapped.additionalProperties === false) {
    mapped.additionalProperties = false;
  }
  const properties = isSchemaObject(mapped.properties)
    ? (mapped.properties as Record<string, JsonSchema>)
    : {};
  const sourceRequired = Array.isArray(schema.required) ? schema.required : [];
  for (const [name, property] of Object.entries(properties)) {
    if (!sourceRequired.includes(name)) properties[name] = makeNullable(property);
  }
  mapped.required = [
    ...sourceRequired,
    ...Object.keys(properties).filter((name) => !sourceRequired.includes(name)),
  ];
  return mapped;
}

/**
 * Derives the OpenAI Responses strict dialect from a plain JSON Schema (see the module header).
 * Never mutates `schema`; the result shares no object with it.
 */
export function toStrictSchema(schema: JsonSchema): JsonSchema {
  return strictNode(schema);
}

function nodeIsStrict(schema: JsonSchema): boolean {
  for (const keyword of STRICT_FORBIDDEN_KEYWORDS) {
    if (keyword in schema) return false;
  }
  if (hasRefusedFormat(schema)) return false;
  if (isObjectNode(schema)) {
    if (schema.additionalProperties !== false) return false;
    const properties = isSchemaObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? schema.required : [];
    if (!Object.keys(properties).every((name) => required.includes(name))) return false;
  }
  let childrenStrict = true;
  mapChildSchemas(schema, (child) => {
    if (!nodeIsStrict(child)) childrenStrict = false;
    return child;
  });
  return childrenStrict;
}

/**
 * Whether OpenAI Responses accepts `schema` with `strict: true`: the root is
 * `type: object`, every object node has `additionalProperties: false` and all of its properties in
 * `required` at every depth, and no node uses `oneOf`, `anyOf`, `allOf`, `not`, `$ref`, `minLength`,
 * `maxLength` or a `format` outside the allowlist. Pure.
 */
export function isStrictCompatible(schema: JsonSchema): boolean {
  return schema.type === 'object' && nodeIsStrict(schema);
}
