import { describe, expect, test } from 'bun:test';
import type { JsonSchema } from '../../src/contracts/json-schema.ts';
import { isStrictCompatible, toStrictSchema } from '../../src/providers/strict-schema.ts';

type Case = [label: string, source: JsonSchema, derived: JsonSchema, strict: boolean];

const cases: Case[] = [
  [
    "a format outside strict mode's allowlist (uri) is dropped; an allowed one (date-time) is kept",
    {
      type: 'object',
      properties: { url: { type: 'string', format: 'uri' }, at: { type: 'string', format: 'date-time' } },
      required: ['url', 'at'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { url: { type: 'string' }, at: { type: 'string', format: 'date-time' } },
      required: ['url', 'at'],
      additionalProperties: false,
    },
    true,
  ],
  [
    'an optional typed const becomes a nullable enum (a const alone would still refuse the null)',
    {
      type: 'object',
      properties: { mode: { type: 'string', const: 'fast' } },
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { mode: { type: ['string', 'null'], enum: ['fast', null] } },
      additionalProperties: false,
      required: ['mode'],
    },
    true,
  ],
  [
    'the spec example: an optional integer becomes nullable and required',
    {
      type: 'object',
      properties: { path: { type: 'string', minLength: 1 }, startLine: { type: 'integer', minimum: 1 } },
      required: ['path'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { path: { type: 'string' }, startLine: { type: ['integer', 'null'], minimum: 1 } },
      required: ['path', 'startLine'],
      additionalProperties: false,
    },
    true,
  ],
  [
    'nested objects are closed and completed at every depth',
    {
      type: 'object',
      properties: {
        options: {
          type: 'object',
          properties: { depth: { type: 'integer', maximum: 5 }, name: { type: 'string', maxLength: 9 } },
          required: ['name'],
        },
      },
    },
    {
      type: 'object',
      properties: {
        options: {
          type: ['object', 'null'],
          properties: { depth: { type: ['integer', 'null'], maximum: 5 }, name: { type: 'string' } },
          required: ['name', 'depth'],
          additionalProperties: false,
        },
      },
      required: ['options'],
      additionalProperties: false,
    },
    true,
  ],
  [
    'arrays of objects: the item object is closed, array bounds kept',
    {
      type: 'object',
      properties: {
        edits: {
          type: 'array',
          minItems: 1,
          maxItems: 10,
          items: {
            type: 'object',
            properties: { old: { type: 'string', minLength: 1 }, all: { type: 'boolean' } },
            required: ['old'],
            additionalProperties: false,
          },
        },
      },
      required: ['edits'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        edits: {
          type: 'array',
          minItems: 1,
          maxItems: 10,
          items: {
            type: 'object',
            properties: { old: { type: 'string' }, all: { type: ['boolean', 'null'] } },
            required: ['old', 'all'],
            additionalProperties: false,
          },
        },
      },
      required: ['edits'],
      additionalProperties: false,
    },
    true,
  ],
  [
    'an open object (additionalProperties: true) stays open and is not strict',
    {
      type: 'object',
      properties: { env: { type: 'object', additionalProperties: true } },
      required: ['env'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { env: { type: 'object', additionalProperties: true, required: [] } },
      required: ['env'],
      additionalProperties: false,
    },
    false,
  ],
  [
    'an object open through a schema stays open and is not strict',
    { type: 'object', properties: {}, additionalProperties: { type: 'string', maxLength: 3 } },
    { type: 'object', properties: {}, additionalProperties: { type: 'string' }, required: [] },
    false,
  ],
  [
    'composition keywords are kept and make the schema not strict',
    {
      type: 'object',
      properties: { value: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
      required: ['value'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { value: { anyOf: [{ type: 'string' }, { type: 'integer' }] } },
      required: ['value'],
      additionalProperties: false,
    },
    false,
  ],
  [
    'an optional anyOf gains a null branch and stays not strict',
    {
      type: 'object',
      properties: { value: { oneOf: [{ type: 'string' }] }, other: { anyOf: [{ type: 'string' }] } },
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        value: { anyOf: [{ oneOf: [{ type: 'string' }] }, { type: 'null' }] },
        other: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['value', 'other'],
      additionalProperties: false,
    },
    false,
  ],
  [
    'enums: an optional enum gains null, a required one does not, one already nullable is not doubled',
    {
      type: 'object',
      properties: {
        mode: { type: 'string', enum: ['a', 'b'] },
        view: { type: 'string', enum: ['text', 'hex'] },
        kind: { type: ['string', 'null'], enum: ['x', null] },
      },
      required: ['mode'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        mode: { type: 'string', enum: ['a', 'b'] },
        view: { type: ['string', 'null'], enum: ['text', 'hex', null] },
        kind: { type: ['string', 'null'], enum: ['x', null] },
      },
      required: ['mode', 'view', 'kind'],
      additionalProperties: false,
    },
    true,
  ],
  [
    'keyword-named properties are data; literal values are copied verbatim',
    {
      type: 'object',
      properties: {
        maxLength: { type: 'integer', default: 5, examples: [{ minLength: 1 }] },
        not: { type: 'string', const: 'maxLength', pattern: '^a', format: 'date' },
      },
      required: ['not'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        maxLength: { type: ['integer', 'null'], default: 5, examples: [{ minLength: 1 }] },
        not: { type: 'string', const: 'maxLength', pattern: '^a', format: 'date' },
      },
      required: ['not', 'maxLength'],
      additionalProperties: false,
    },
    true,
  ],
  [
    'a $ref is kept and makes the schema not strict',
    {
      type: 'object',
      properties: { node: { $ref: '#/$defs/node' } },
      required: ['node'],
      additionalProperties: false,
      $defs: { node: { type: 'object', properties: {}, additionalProperties: false } },
    },
    {
      type: 'object',
      properties: { node: { $ref: '#/$defs/node' } },
      required: ['node'],
      additionalProperties: false,
      $defs: { node: { type: 'object', properties: {}, additionalProperties: false, required: [] } },
    },
    false,
  ],
];

describe('toStrictSchema and isStrictCompatible', () => {
  test.each(cases)('%s', (_label, source, derived, strict) => {
    expect(toStrictSchema(source)).toEqual(derived);
    expect(isStrictCompatible(toStrictSchema(source))).toBe(strict);
  });

  test('the input is never mutated and the output shares no object with it', () => {
    for (const [, source] of cases) {
      const before = structuredClone(source);
      const frozen = deepFreeze(structuredClone(source));
      const derived = toStrictSchema(frozen);
      expect(frozen).toEqual(before);
      for (const node of collectObjects(derived)) expect(collectObjects(frozen)).not.toContain(node);
    }
  });
});

type RuleCase = [label: string, schema: JsonSchema, strict: boolean];
const ruleCases: RuleCase[] = [
  [
    'a format strict mode refuses',
    {
      type: 'object',
      properties: { a: { type: 'string', format: 'uri' } },
      required: ['a'],
      additionalProperties: false,
    },
    false,
  ],
  ['root must be an object', { type: 'array', items: { type: 'string' } }, false],
  ['root without type', { properties: {}, additionalProperties: false, required: [] }, false],
  ['missing additionalProperties', { type: 'object', properties: {}, required: [] }, false],
  [
    'a property missing from required',
    { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
    false,
  ],
  [
    'minLength anywhere',
    {
      type: 'object',
      properties: { a: { type: 'string', minLength: 1 } },
      required: ['a'],
      additionalProperties: false,
    },
    false,
  ],
  [
    'maxLength in an array item',
    {
      type: 'object',
      properties: { a: { type: 'array', items: { type: 'string', maxLength: 1 } } },
      required: ['a'],
      additionalProperties: false,
    },
    false,
  ],
  ['allOf', { type: 'object', properties: {}, required: [], additionalProperties: false, allOf: [] }, false],
  [
    'not as a keyword',
    {
      type: 'object',
      properties: { a: { type: 'string', not: { const: 'x' } } },
      required: ['a'],
      additionalProperties: false,
    },
    false,
  ],
  [
    'a nested object not closed',
    {
      type: 'object',
      properties: { a: { type: 'object', properties: {}, required: [] } },
      required: ['a'],
      additionalProperties: false,
    },
    false,
  ],
  [
    'a property named not is fine',
    {
      type: 'object',
      properties: { not: { type: 'string' } },
      required: ['not'],
      additionalProperties: false,
    },
    true,
  ],
  [
    'an empty closed object',
    { type: 'object', properties: {}, required: [], additionalProperties: false },
    true,
  ],
];

describe('isStrictCompatible rules', () => {
  test.each(ruleCases)('%s', (_label, schema, strict) => {
    expect(isStrictCompatible(schema)).toBe(strict);
  });
});

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

function collectObjects(value: unknown, found: object[] = []): object[] {
  if (typeof value === 'object' && value !== null) {
    found.push(value);
    for (const child of Object.values(value)) collectObjects(child, found);
  }
  return found;
}
