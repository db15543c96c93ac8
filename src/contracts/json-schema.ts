/**
 * The JSON Schema type every layer speaks: tools author their arguments in it, providers map it to each
 * API's dialect, MCP advertises it and the settings API describes values with it. It is a plain data
 * type with no behaviour, so it sits at the bottom of the layer order (docs/architecture.md) and
 * imports nothing.
 */

export type JsonSchemaType = 'object' | 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'null';

/** Plain JSON Schema, as tools author it (the source dialect each provider's mapping starts from). */
export interface JsonSchema {
  type?: JsonSchemaType | JsonSchemaType[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  examples?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  allOf?: JsonSchema[];
  not?: JsonSchema;
  $ref?: string;
  [keyword: string]: unknown;
}
