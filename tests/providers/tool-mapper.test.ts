import { describe, expect, test } from 'bun:test';
import { toGeminiSchema } from '../../src/providers/gemini-schema.ts';
import {
  toolDefsToAnthropic,
  toolDefsToChatCompletions,
  toolDefsToGeminiInteractions,
  toolDefsToResponsesAPI,
} from '../../src/providers/tool-mapper.ts';
import { getCurrentDatetimeTool } from '../../src/tools/builtin/get-current-datetime.ts';
import '../../src/tools/builtin/register-builtin-tools.ts';
import type { JsonSchema } from '../../src/contracts/json-schema.ts';
import type { ToolDefinition } from '../../src/contracts/tool-definition.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { makeReachableSet } from '../helpers/tool-context.ts';

const readFile: ToolDefinition = {
  name: 'read_file',
  description: 'Reads a file.',
  parameters: {
    type: 'object',
    properties: {
      path: { type: 'string', minLength: 1, maxLength: 4096 },
      startLine: { type: 'integer', minimum: 1 },
      view: { type: 'string', enum: ['text', 'hex'] },
    },
    required: ['path'],
    additionalProperties: false,
  },
};

const openEnv: ToolDefinition = {
  name: 'run',
  description: 'Runs.',
  parameters: {
    type: 'object',
    properties: { env: { type: 'object', additionalProperties: { type: 'string' } } },
    required: ['env'],
    additionalProperties: false,
  },
};

describe('toolDefsToResponsesAPI', () => {
  test('a strict-compatible tool goes out with the derived schema and strict: true', () => {
    expect(toolDefsToResponsesAPI([readFile])).toEqual([
      {
        type: 'function',
        name: 'read_file',
        description: 'Reads a file.',
        parameters: {
          type: 'object',
          properties: {
            path: { type: 'string' },
            startLine: { type: ['integer', 'null'], minimum: 1 },
            view: { type: ['string', 'null'], enum: ['text', 'hex', null] },
          },
          required: ['path', 'startLine', 'view'],
          additionalProperties: false,
        },
        strict: true,
      },
    ]);
  });

  test('a tool that cannot be strict goes out untouched with strict: false', () => {
    expect(toolDefsToResponsesAPI([openEnv])).toEqual([
      { type: 'function', name: 'run', description: 'Runs.', parameters: openEnv.parameters, strict: false },
    ]);
  });
});

describe('toolDefsToChatCompletions', () => {
  test('the plain source schema, length bounds included', () => {
    expect(toolDefsToChatCompletions([readFile])).toEqual([
      {
        type: 'function',
        function: { name: 'read_file', description: 'Reads a file.', parameters: readFile.parameters },
      },
    ]);
  });
});

describe('toolDefsToAnthropic', () => {
  test('input_schema is the source schema, length bounds included', () => {
    expect(toolDefsToAnthropic([readFile])).toEqual([
      {
        name: 'read_file',
        description: 'Reads a file.',
        input_schema: { ...readFile.parameters, type: 'object' },
      },
    ]);
  });
});

describe('toolDefsToGeminiInteractions', () => {
  test('a function tool with the Gemini subset of the schema', () => {
    expect(toolDefsToGeminiInteractions([readFile])).toEqual([
      {
        type: 'function',
        name: 'read_file',
        description: 'Reads a file.',
        parameters: {
          type: 'object',
          properties: {
            path: { type: 'string', minLength: 1, maxLength: 4096 },
            startLine: { type: 'integer', minimum: 1 },
            view: { type: 'string', enum: ['text', 'hex'] },
          },
          required: ['path'],
        },
      },
    ]);
  });

  const geminiCases: [string, JsonSchema, JsonSchema][] = [
    ['a nullable type becomes its one non-null type', { type: ['string', 'null'] }, { type: 'string' }],
    [
      'several non-null types become anyOf',
      { type: ['string', 'integer'] },
      { anyOf: [{ type: 'string' }, { type: 'integer' }] },
    ],
    ['null leaves an enum', { type: ['string', 'null'], enum: ['a', null] }, { type: 'string', enum: ['a'] }],
    ['const becomes a one-value enum', { type: 'string', const: 'x' }, { type: 'string', enum: ['x'] }],
    ['oneOf is sent as anyOf', { oneOf: [{ type: 'string' }] }, { anyOf: [{ type: 'string' }] }],
    [
      'additionalProperties, $schema and examples are removed at every depth',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          items: { type: 'array', items: { type: 'object', properties: {}, additionalProperties: false } },
        },
        additionalProperties: false,
        examples: [{}],
      },
      { type: 'object', properties: { items: { type: 'array', items: { type: 'object', properties: {} } } } },
    ],
    [
      'keyword-named properties are kept',
      { type: 'object', properties: { not: { type: 'string' }, additionalProperties: { type: 'boolean' } } },
      { type: 'object', properties: { not: { type: 'string' }, additionalProperties: { type: 'boolean' } } },
    ],
  ];
  test.each(geminiCases)('%s', (_label, source, expected) => {
    expect(toGeminiSchema(source)).toEqual(expected);
  });
});

test('no mapper mutates its input or shares an object with it', () => {
  const before = structuredClone([readFile, openEnv]);
  const outputs = [
    toolDefsToResponsesAPI([readFile, openEnv]),
    toolDefsToChatCompletions([readFile, openEnv]),
    toolDefsToGeminiInteractions([readFile, openEnv]),
    toolDefsToAnthropic([readFile, openEnv]),
  ];
  expect([readFile, openEnv]).toEqual(before);
  const sourceObjects = new Set<unknown>([readFile.parameters, openEnv.parameters]);
  const visit = (value: unknown) => {
    if (typeof value !== 'object' || value === null) return;
    expect(sourceObjects.has(value)).toBe(false);
    for (const child of Object.values(value)) visit(child);
  };
  visit(outputs);
});

test('round trip: a strict model sending null for every optional takes the same path as one omitting them', async () => {
  const [wire] = toolDefsToResponsesAPI([getCurrentDatetimeTool.definition]);
  const strictProperties = Object.keys((wire!.parameters as JsonSchema).properties ?? {});
  const nullArguments = Object.fromEntries(strictProperties.map((name) => [name, null]));
  expect(nullArguments).toEqual({ timezone: null, locale: null });
  const context = { userId: 'u1', reachable: makeReachableSet(), now: () => Date.UTC(2026, 10, 30, 6) };
  const viaNull = await executeTool('get_current_datetime', nullArguments, context);
  expect(viaNull.ok).toBe(true);
  expect(viaNull).toEqual(await executeTool('get_current_datetime', {}, context));
});
