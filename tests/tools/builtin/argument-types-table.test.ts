/**
 * The argument rule (malformed arguments are rejected, not substituted; optional
 * arguments are optional) checked for EVERY declared property of EVERY registered builtin: a value of
 * the wrong JSON type is `validation_failed` naming the argument, and `null` for an optional argument
 * takes the same path as leaving it out. Each tool's baseline call is derived from its own schema, so a
 * new tool is checked without an entry here.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import type { JsonSchema } from '../../../src/contracts/json-schema.ts';
import { defaultArgumentValidator } from '../../../src/tools/argument-validator.ts';
import { executeTool } from '../../../src/tools/execution.ts';
import { InMemoryFreshnessLedger } from '../../../src/tools/freshness-ledger.ts';
import { listTools } from '../../../src/tools/registry.ts';
import type { ToolExecutionResult } from '../../../src/tools/types.ts';
import '../../../src/tools/builtin/register-builtin-tools.ts';
import { makeReachableSet, makeTempDirectory } from '../../helpers/tool-context.ts';

const directory = makeTempDirectory('mango-argtypes-');

afterAll(() => directory.remove());

/**
 * A value the schema accepts: the first of an enum, the property's own name for a string (so two string
 * arguments differ, as an edit's old and new text must), the lower bound for a number.
 */
function acceptedValue(property: string, schema: JsonSchema): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case 'string': {
      const length = Math.max(property.length, typeof schema.minLength === 'number' ? schema.minLength : 1);
      const text = property.padEnd(length, 'x');
      return typeof schema.maxLength === 'number' ? text.slice(0, schema.maxLength) : text;
    }
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return false;
    case 'array': {
      const count = typeof schema.minItems === 'number' ? schema.minItems : 0;
      const items = (schema.items ?? {}) as JsonSchema;
      return Array.from({ length: count }, (_, index) => acceptedValue(`${property}${index}`, items));
    }
    case 'object':
      return baselineFor(schema);
    default:
      throw new Error(`no accepted value for ${property} of type ${JSON.stringify(schema.type)}`);
  }
}

/** A valid call: only the required arguments, each with a value its schema accepts. */
function baselineFor(schema: JsonSchema): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (schema.required ?? []) as string[];
  return Object.fromEntries(required.map((name) => [name, acceptedValue(name, properties[name] ?? {})]));
}

/** Values of the wrong JSON type for a property schema. */
function wrongValues(schema: JsonSchema): unknown[] {
  const type = schema.type;
  switch (type) {
    case 'string':
      return [42, true, ['a.txt'], { value: 'a.txt' }];
    case 'integer':
      return ['5', 1.5, true, [5]];
    case 'number':
      return ['1', true];
    case 'boolean':
      return ['true', 1, [true]];
    case 'array':
      return ['a', 1, { 0: 'a' }];
    case 'object':
      return ['a', 1, []];
    default:
      throw new Error(`no wrong values for type ${JSON.stringify(type)}`);
  }
}

function call(name: string, args: Record<string, unknown>): Promise<ToolExecutionResult> {
  return executeTool(
    name,
    args,
    {
      userId: 'user-1',
      chatId: `argtypes-${name}`,
      reachable: makeReachableSet({ workingDirectory: directory.path }),
      ledger: new InMemoryFreshnessLedger(),
    },
    { enabled: true },
  );
}

function outcomeKind(outcome: ToolExecutionResult): string {
  return outcome.ok ? 'ok' : outcome.error.classification;
}

const tools = listTools();
const BASELINE = Object.fromEntries(
  tools.map((tool) => [tool.definition.name, baselineFor(tool.definition.parameters)]),
);

test('the derived baseline calls are the expected ones for known tools', () => {
  expect(BASELINE.read_file).toEqual({ path: 'path' });
  expect(BASELINE.edit_file).toEqual({ path: 'path', oldString: 'oldString', newString: 'newString' });
  expect(BASELINE.get_current_datetime).toEqual({});
});

describe.each(tools.map((tool) => [tool.definition.name, tool] as const))('%s', (name, tool) => {
  const properties = Object.entries(tool.definition.parameters.properties ?? {});
  const required = new Set(tool.definition.parameters.required ?? []);

  test('the baseline call passes the schema the executor validates against', () => {
    const args = { ...BASELINE[name] };
    expect(defaultArgumentValidator.validate(name, tool.definition.parameters, args)).toEqual(args);
  });

  test('a value of the wrong JSON type for each argument is validation_failed naming it', async () => {
    for (const [property, schema] of properties) {
      for (const value of wrongValues(schema)) {
        const outcome = await call(name, { ...BASELINE[name], [property]: value });
        const label = `${name}.${property} = ${JSON.stringify(value)}`;
        expect({ label, kind: outcomeKind(outcome) }).toEqual({ label, kind: 'validation_failed' });
        if (!outcome.ok) expect(outcome.error.message).toContain(`"${property}"`);
      }
    }
  });

  test('null for each optional argument is treated as absent', async () => {
    for (const [property] of properties) {
      if (required.has(property)) continue;
      const absent = await call(name, { ...BASELINE[name] });
      const asNull = await call(name, { ...BASELINE[name], [property]: null });
      const label = `${name}.${property} = null`;
      expect({ label, kind: outcomeKind(asNull) }).toEqual({ label, kind: outcomeKind(absent) });
    }
  });

  test('the executor enforces every bound the schema advertises (strict schemas drop length bounds)', async () => {
    for (const [property, schema] of properties) {
      const outOfBounds: unknown[] = [];
      if (typeof schema.minLength === 'number' && schema.minLength > 0) {
        outOfBounds.push('x'.repeat(schema.minLength - 1));
      }
      if (typeof schema.maxLength === 'number') outOfBounds.push('x'.repeat(schema.maxLength + 1));
      if (typeof schema.minimum === 'number') outOfBounds.push(schema.minimum - 1);
      if (typeof schema.maximum === 'number') outOfBounds.push(schema.maximum + 1);
      if (Array.isArray(schema.enum)) outOfBounds.push('not-one-of-them');
      for (const value of outOfBounds) {
        const outcome = await call(name, { ...BASELINE[name], [property]: value });
        const label = `${name}.${property} = ${JSON.stringify(value).slice(0, 40)}`;
        expect({ label, kind: outcomeKind(outcome) }).toEqual({ label, kind: 'validation_failed' });
      }
    }
  });

  test('a missing required argument is validation_failed naming it', async () => {
    for (const property of required) {
      const args = { ...BASELINE[name] };
      delete args[property];
      const outcome = await call(name, args);
      expect(outcomeKind(outcome)).toBe('validation_failed');
      if (!outcome.ok) expect(outcome.error.message).toContain(`"${property}"`);
    }
  });
});
