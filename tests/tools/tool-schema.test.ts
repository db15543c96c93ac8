import { expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { StringEnum, toToolParameters } from '../../src/tools/tool-schema.ts';

test('a TypeBox object becomes plain JSON Schema: no symbol keys, required and additionalProperties stated', () => {
  const schema = Type.Object({
    name: Type.String({ minLength: 1, description: 'Who' }),
    mode: Type.Optional(StringEnum(['fast', 'slow'], { description: 'How' })),
    nested: Type.Optional(Type.Object({ depth: Type.Integer({ minimum: 0 }) })),
  });
  const plain = toToolParameters(schema, 'sample');
  expect(plain).toEqual({
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, description: 'Who' },
      mode: { type: 'string', enum: ['fast', 'slow'], description: 'How' },
      nested: { type: 'object', properties: { depth: { type: 'integer', minimum: 0 } }, required: ['depth'] },
    },
    required: ['name'],
    additionalProperties: false,
  });
  const symbols = (value: unknown): number =>
    typeof value !== 'object' || value === null
      ? 0
      : Object.getOwnPropertySymbols(value).length +
        Object.values(value).reduce((sum, child) => sum + symbols(child), 0);
  expect(symbols(schema)).toBeGreaterThan(0);
  expect(symbols(plain)).toBe(0);
  expect(toToolParameters(Type.Object({}), 'empty')).toEqual({
    type: 'object',
    properties: {},
    required: [],
    additionalProperties: false,
  });
});

test('a union (anyOf, refused by OpenAI strict mode) is refused when the tool is declared', () => {
  const schema = Type.Object({ mode: Type.Union([Type.Literal('a'), Type.Literal('b')]) });
  expect(() => toToolParameters(schema, 'sample')).toThrow(
    'Tool "sample" declares "anyOf" at /properties/mode in its parameters; OpenAI\'s strict mode refuses it.',
  );
});

test('property names and literal values are data, never keywords', () => {
  const schema = Type.Object({
    anyOf: Type.String(),
    not: Type.Optional(Type.String({ default: 'x', examples: ['oneOf'] })),
  });
  expect(toToolParameters(schema, 'sample').properties).toEqual({
    anyOf: { type: 'string' },
    not: { type: 'string', default: 'x', examples: ['oneOf'] },
  });
});
