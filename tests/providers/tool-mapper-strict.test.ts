/**
 * Every built-in tool is strict-compatible after `toStrictSchema`: a tool that fails
 * isStrictCompatible on the derived schema is fixed rather than exempted. The cases come from the
 * registry, so a tool added to `src/tools/builtin/register-builtin-tools.ts` is covered without editing this file.
 */
import { describe, expect, test } from 'bun:test';
import Ajv from 'ajv';
import { toStrictJsonSchema } from 'openai/lib/transform';
import { isStrictCompatible, toStrictSchema } from '../../src/providers/strict-schema.ts';
import { toolDefsToResponsesAPI } from '../../src/providers/tool-mapper.ts';
import '../../src/tools/builtin/register-builtin-tools.ts';
import type { JsonSchema } from '../../src/contracts/json-schema.ts';
import type { ToolDefinition } from '../../src/contracts/tool-definition.ts';
import { listTools } from '../../src/tools/registry.ts';
import { getDefaultToolSettings } from '../../src/tools/tool-settings-resolver.ts';
import { relaxStrictSchema, withoutLengthBounds } from './strict-schema-inverse.ts';

/** Each builtin's static definition, plus its settings-aware one under default settings. */
function builtinDefinitions(): [string, ToolDefinition][] {
  const cases: [string, ToolDefinition][] = [];
  for (const tool of listTools()) {
    cases.push([tool.definition.name, tool.definition]);
    if (tool.buildDefinition) {
      cases.push([
        `${tool.definition.name} (built with default settings)`,
        tool.buildDefinition(getDefaultToolSettings(tool)),
      ]);
    }
  }
  return cases;
}

/** A representative argument object for a strict schema: `null` for every optional, a sample otherwise. */
function sampleArguments(source: JsonSchema): Record<string, unknown> {
  const properties = (source.properties ?? {}) as Record<string, JsonSchema>;
  const required = source.required ?? [];
  const args: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    args[name] = required.includes(name) ? sampleValue(property) : null;
  }
  return args;
}

function sampleValue(schema: JsonSchema): unknown {
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object':
      return sampleArguments(schema);
    case 'array':
      return Array.from({ length: schema.minItems ?? 1 }, () => sampleValue(schema.items ?? {}));
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return 'a'.repeat(Math.max(1, schema.minLength ?? 1));
  }
}

const definitions = builtinDefinitions();

describe('every registered builtin tool', () => {
  test('the registry holds the builtins', () => {
    expect(definitions.length).toBeGreaterThan(0);
    expect(definitions.map(([name]) => name)).toContain('get_current_datetime');
  });

  test.each(definitions)('%s goes out to Responses with strict: true', (_name, definition) => {
    const [wire] = toolDefsToResponsesAPI([definition]);
    expect(isStrictCompatible(toStrictSchema(definition.parameters))).toBe(true);
    expect(wire?.strict).toBe(true);
    expect(wire?.parameters).toEqual(toStrictSchema(definition.parameters));
  });

  test.each(definitions)(
    '%s: relaxing the strict schema gives back the source minus length bounds',
    (_name, definition) => {
      expect(relaxStrictSchema(toStrictSchema(definition.parameters))).toEqual(
        withoutLengthBounds(definition.parameters),
      );
    },
  );

  test.each(definitions)(
    '%s: the openai SDK strict helper leaves the derived schema as it is',
    (_name, definition) => {
      const derived = toStrictSchema(definition.parameters) as Parameters<typeof toStrictJsonSchema>[0];
      // `toStrictJsonSchema` throws on a schema strict mode cannot represent, and closes or completes any
      // object node we left open: a fixed point means our derivation is already what the SDK would send.
      expect(toStrictJsonSchema(derived)).toEqual(derived);
    },
  );

  test.each(definitions)(
    '%s: null for every optional validates against the derived schema',
    (_name, definition) => {
      const validate = new Ajv({ strict: false, allErrors: true }).compile(
        toStrictSchema(definition.parameters),
      );
      validate(sampleArguments(definition.parameters));
      // A generated sample cannot satisfy an arbitrary `pattern`; every other rule must hold.
      expect((validate.errors ?? []).filter((error) => error.keyword !== 'pattern')).toEqual([]);
    },
  );
});
