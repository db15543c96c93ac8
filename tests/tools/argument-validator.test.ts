import { describe, expect, test } from 'bun:test';
import '../../src/tools/builtin/register-builtin-tools.ts';
import type { JsonSchema } from '../../src/contracts/json-schema.ts';
import { ArgumentValidator, MAX_SCHEMA_BYTES, MAX_SCHEMA_DEPTH } from '../../src/tools/argument-validator.ts';
import { ToolError } from '../../src/tools/errors.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { listTools, ToolRegistry } from '../../src/tools/registry.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import { makeReachableSet } from '../helpers/tool-context.ts';

const context = { userId: 'u1', reachable: makeReachableSet() };

/** A value the property accepts, built from its own bounds. */
function validValue(schema: JsonSchema): unknown {
  if (schema.enum) return schema.enum[0];
  if (schema.type === 'integer' || schema.type === 'number') return schema.minimum ?? 1;
  if (schema.type === 'boolean') return true;
  if (schema.type === 'array') return [];
  return 'x'.repeat(Math.max(schema.minLength ?? 1, 1));
}

interface BoundCase {
  tool: string;
  argument: string;
  keyword: string;
  value: unknown;
  message: string;
}

/** One value just past each bound each builtin's schema declares, with the message it must get. */
function boundCases(): BoundCase[] {
  const cases: BoundCase[] = [];
  for (const tool of listTools()) {
    for (const [argument, schema] of Object.entries(tool.definition.parameters.properties ?? {})) {
      const add = (keyword: string, value: unknown, message: string) =>
        cases.push({ tool: tool.definition.name, argument, keyword, value, message });
      const name = `Argument "${argument}"`;
      const chars = (count: number) => `${count} character${count === 1 ? '' : 's'}`;
      if (schema.minimum !== undefined)
        add(
          'minimum',
          schema.minimum - 1,
          `${name} must be at least ${schema.minimum}, got ${schema.minimum - 1}.`,
        );
      if (schema.maximum !== undefined)
        add(
          'maximum',
          schema.maximum + 1,
          `${name} must be at most ${schema.maximum}, got ${schema.maximum + 1}.`,
        );
      if (schema.minLength !== undefined && schema.minLength > 0) {
        const short = schema.minLength - 1;
        add(
          'minLength',
          'x'.repeat(short),
          `${name} must be at least ${chars(schema.minLength)} long, got ${short}.`,
        );
      }
      if (schema.maxLength !== undefined) {
        const long = schema.maxLength + 1;
        add(
          'maxLength',
          'x'.repeat(long),
          `${name} must be at most ${chars(schema.maxLength)} long, got ${long}.`,
        );
      }
      if (schema.enum) {
        const allowed = schema.enum.map((item) => JSON.stringify(item)).join(', ');
        add('enum', 'not-a-choice', `${name} must be one of ${allowed}, got "not-a-choice".`);
      }
    }
  }
  return cases;
}

function validArguments(schema: JsonSchema): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const key of schema.required ?? []) args[key] = validValue(schema.properties?.[key] ?? {});
  return args;
}

function refusal(run: () => unknown): { classification: string; message: string } {
  try {
    run();
  } catch (error) {
    if (ToolError.isInstance(error)) return { classification: error.classification, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('central argument validation over every builtin', () => {
  const cases = boundCases();

  test('the table covers every bound keyword the builtins declare', () => {
    expect(new Set(cases.map((item) => item.keyword))).toEqual(
      new Set(['minimum', 'maximum', 'minLength', 'maxLength', 'enum']),
    );
    expect(new Set(cases.map((item) => item.tool)).size).toBeGreaterThanOrEqual(9);
  });

  test.each(cases.map((item) => [`${item.tool} ${item.argument} ${item.keyword}`, item] as const))(
    '%s past its bound is refused',
    (_label, item) => {
      const validator = new ArgumentValidator();
      const tool = listTools().find((candidate) => candidate.definition.name === item.tool);
      if (!tool) throw new Error(`no tool ${item.tool}`);
      const schema = tool.definition.parameters;
      const valid = validArguments(schema);
      expect(validator.validate(item.tool, schema, valid)).toEqual(valid);
      expect(
        refusal(() => validator.validate(item.tool, schema, { ...valid, [item.argument]: item.value })),
      ).toEqual({ classification: 'validation_failed', message: item.message });
    },
  );

  test.each(listTools().map((tool) => [tool.definition.name] as const))(
    '%s: wrong type, undeclared key and null-as-absent',
    (name) => {
      const validator = new ArgumentValidator();
      const tool = listTools().find((candidate) => candidate.definition.name === name);
      if (!tool) throw new Error(`no tool ${name}`);
      const schema = tool.definition.parameters;
      const valid = validArguments(schema);
      const declared = Object.keys(schema.properties ?? {});
      expect(refusal(() => validator.validate(name, schema, { ...valid, misspelt: 1 }))).toEqual({
        classification: 'validation_failed',
        message: `Tool "${name}" has no argument "misspelt". Its arguments are: ${declared.join(', ')}.`,
      });
      const optional = declared.filter((key) => !(schema.required ?? []).includes(key));
      const withNulls = {
        ...valid,
        ...Object.fromEntries(optional.map((key) => [key, null])),
        undeclared: null,
      };
      expect(validator.validate(name, schema, withNulls)).toEqual(valid);
      const first = declared[0] as string;
      const message = refusal(() =>
        validator.validate(name, schema, { ...valid, [first]: { nested: true } }),
      ).message;
      expect(message.startsWith(`Argument "${first}" must be `)).toBe(true);
      expect(message.endsWith(', got an object.')).toBe(true);
    },
  );
});

describe('schemas the validator refuses or must survive', () => {
  test('a null the schema itself accepts is kept and checked', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { note: { type: ['string', 'null'] }, count: { type: 'integer' } },
      required: ['note'],
      additionalProperties: false,
    };
    const validator = new ArgumentValidator();
    expect(validator.validate('t', schema, { note: null, count: null })).toEqual({ note: null });
    expect(refusal(() => validator.validate('t', schema, { count: null }))).toEqual({
      classification: 'validation_failed',
      message: 'Argument "note" is required (a string or null).',
    });
  });

  test('a null for a property whose schema does not accept null counts as absent', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        choice: { enum: ['a', 'b'] },
        either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        linked: { $ref: '#/$defs/text' },
        free: {},
      },
      $defs: { text: { type: 'string' } },
      additionalProperties: false,
    };
    const validator = new ArgumentValidator();
    expect(validator.validate('t', schema, { choice: null, either: null, linked: null, free: null })).toEqual(
      {
        either: null,
        free: null,
      },
    );
    expect(refusal(() => validator.validate('t', schema, { linked: 5 }))).toEqual({
      classification: 'validation_failed',
      message: 'Argument "linked" must be a string, got number 5.',
    });
  });

  test('a nested value is named by its path, with its bound', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: {
        edits: {
          type: 'array',
          maxItems: 2,
          items: { type: 'object', properties: { path: { type: 'string' } }, additionalProperties: false },
        },
      },
    };
    const validator = new ArgumentValidator();
    expect(refusal(() => validator.validate('t', schema, { edits: [{ path: 'a' }, { path: 3 }] }))).toEqual({
      classification: 'validation_failed',
      message: 'Argument "edits[1].path" must be a string, got number 3.',
    });
    expect(refusal(() => validator.validate('t', schema, { edits: [{}, {}, {}] }))).toEqual({
      classification: 'validation_failed',
      message: 'Argument "edits" must have at most 2 items, got 3.',
    });
    expect(refusal(() => validator.validate('t', schema, { edits: [{ mode: 'x' }] }))).toEqual({
      classification: 'validation_failed',
      message: 'Argument "edits[0]" has no key "mode".',
    });
  });

  test('a schema nested past the depth cap is refused through executeTool', async () => {
    let deep: JsonSchema = { type: 'string' };
    for (let level = 0; level < MAX_SCHEMA_DEPTH; level += 1) deep = { type: 'array', items: deep };
    const registry = new ToolRegistry();
    registry.register(
      makeTool({
        name: 'deep',
        definition: {
          name: 'deep',
          description: 'deep',
          parameters: { type: 'object', properties: { value: deep }, additionalProperties: false },
        },
      }),
    );
    expect(await executeTool('deep', {}, context, undefined, { registry })).toEqual({
      ok: false,
      error: {
        classification: 'execution_error',
        message: `The argument schema of tool "deep" nests deeper than ${MAX_SCHEMA_DEPTH} levels; it is refused, so the tool cannot be called.`,
      },
    });
  });

  test('a schema over the size cap is refused with its size', () => {
    const properties: Record<string, JsonSchema> = {};
    for (let index = 0; index < 2000; index += 1)
      properties[`argument${index}`] = { type: 'string', description: 'x'.repeat(30) };
    const schema: JsonSchema = { type: 'object', properties };
    const bytes = Buffer.byteLength(JSON.stringify(schema), 'utf8');
    expect(bytes).toBeGreaterThan(MAX_SCHEMA_BYTES);
    expect(refusal(() => new ArgumentValidator().validate('big', schema, {}))).toEqual({
      classification: 'execution_error',
      message: `The argument schema of tool "big" is ${bytes} bytes of JSON; at most ${MAX_SCHEMA_BYTES} are accepted, so the tool cannot be called.`,
    });
  });

  test('a catastrophically backtracking pattern is checked in bounded time on the linear engine', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { word: { type: 'string', pattern: '^(a+)+$' } },
    };
    const validator = new ArgumentValidator();
    // On JavaScript's backtracking engine this input takes about 2^40 steps.
    const hostile = `${'a'.repeat(40)}!`;
    const started = performance.now();
    expect(refusal(() => validator.validate('p', schema, { word: hostile }))).toEqual({
      classification: 'validation_failed',
      message: `Argument "word" must match the pattern "^(a+)+$", got the string ${JSON.stringify(`${'a'.repeat(40)}!`)}.`,
    });
    expect(validator.validate('p', schema, { word: 'aaaa' })).toEqual({ word: 'aaaa' });
    expect(performance.now() - started).toBeLessThan(5000);
  });

  test('a pattern the linear engine cannot run is refused, not run on the backtracking engine', () => {
    const schema: JsonSchema = {
      type: 'object',
      properties: { word: { type: 'string', pattern: '^(a)\\1$' } },
    };
    const failure = refusal(() => new ArgumentValidator().validate('p', schema, { word: 'aa' }));
    expect(failure.classification).toBe('execution_error');
    expect(failure.message.startsWith('The schema pattern "^(a)\\\\1$" cannot run on the linear-time')).toBe(
      true,
    );
  });
});
