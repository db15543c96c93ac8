import { expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { defineTool } from '../../src/tools/define-tool.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { StringEnum } from '../../src/tools/tool-schema.ts';
import { setting } from '../../src/tools/tool-settings.ts';
import { getDefaultToolSettings, getToolDefinition } from '../../src/tools/tool-settings-resolver.ts';
import { CAUTIOUS_TRAITS } from '../../src/tools/tool-traits.ts';
import { makeReachableSet } from '../helpers/tool-context.ts';

const seen: unknown[] = [];

const counter = defineTool({
  name: 'counter',
  description: 'Counts up to a limit.',
  parameters: Type.Object({
    to: Type.Integer({ minimum: 1, maximum: 100 }),
    unit: Type.Optional(StringEnum(['items', 'steps'])),
  }),
  traits: CAUTIOUS_TRAITS,
  title: 'Counter',
  summary: 'Counts.',
  category: 'interaction',
  enabledByDefault: false,
  canDisable: true,
  settings: {
    limit: setting.integer({ label: 'Limit', description: 'Highest count.', min: 1, max: 50, default: 10 }),
    unitName: setting.select({
      label: 'Unit',
      description: 'Default unit.',
      allowedValues: ['items', 'steps'],
      default: 'items',
    }),
  },
  advertise: ({ limit }) => ({ description: `Counts up to ${limit}.` }),
  resultBudgetBytes: 4096,
  reportsPartialResultOnAbort: true,
  isAvailable: () => true,
  execute: async (args, _context, settings) => {
    // The types follow the declaration: a wrong use does not compile.
    // @ts-expect-error `to` is a number
    const wrongArgument: string = args.to;
    // @ts-expect-error `limit` is a number
    const wrongSetting: string = settings.limit;
    // @ts-expect-error a setting that is not declared
    void settings.missing;
    const unit: 'items' | 'steps' = args.unit ?? settings.unitName;
    seen.push({ args, settings, wrongArgument, wrongSetting });
    return { counted: Math.min(args.to, settings.limit), unit };
  },
});

test('the RegisteredTool carries what the declaration states', () => {
  expect(counter.definition).toEqual({
    name: 'counter',
    description: 'Counts up to a limit.',
    parameters: {
      type: 'object',
      properties: {
        to: { type: 'integer', minimum: 1, maximum: 100 },
        unit: { type: 'string', enum: ['items', 'steps'] },
      },
      required: ['to'],
      additionalProperties: false,
    },
  });
  expect(counter.traits).toEqual(CAUTIOUS_TRAITS);
  expect(counter.traits).not.toBe(CAUTIOUS_TRAITS);
  expect(counter.settings.enabledByDefault).toBe(false);
  expect(counter.settings.defaultParameters).toEqual({ limit: 10, unitName: 'items' });
  expect(counter.resultBudgetBytes).toBe(4096);
  expect(counter.reportsPartialResultOnAbort).toBe(true);
  expect(counter.isAvailable?.()).toBe(true);
  expect(counter.notice).toBeUndefined();
});

test('advertise changes what the model is offered under the settings, from typed values', () => {
  expect(getToolDefinition(counter, getDefaultToolSettings(counter)).description).toBe('Counts up to 10.');
  const built = getToolDefinition(counter, { enabled: true, parameters: { limit: 99 } });
  // 99 is outside the declared bounds: the reader gives the bounded value.
  expect(built.description).toBe('Counts up to 50.');
  expect(built.parameters).toEqual(counter.definition.parameters);
  expect(built.parameters).not.toBe(counter.definition.parameters);
});

test('execute gets validated arguments and the saved settings, typed', async () => {
  const registry = new ToolRegistry();
  registry.register(counter);
  const invalid: string[] = [];
  const run = (args: unknown, parameters: Record<string, unknown>) =>
    executeTool(
      'counter',
      args,
      { userId: 'u', reachable: makeReachableSet() },
      { enabled: true, parameters },
      { registry, onInvalidSettings: (error) => invalid.push(error.message) },
    );
  expect(await run({ to: 30, unit: null }, { limit: 20, unitName: 'steps' })).toEqual({
    ok: true,
    result: { counted: 20, unit: 'steps' },
  });
  expect(seen.at(-1)).toMatchObject({ args: { to: 30 }, settings: { limit: 20, unitName: 'steps' } });
  // A saved value the settings resolver refuses falls back to its default before execute sees it.
  expect(await run({ to: 30 }, { limit: 500 })).toEqual({ ok: true, result: { counted: 10, unit: 'items' } });
  expect(invalid).toEqual(['Tool "counter" setting "Limit" must be at most 50, got 500.']);
  expect(await run({ to: 0 }, {})).toEqual({
    ok: false,
    error: { classification: 'validation_failed', message: 'Argument "to" must be at least 1, got 0.' },
  });
});
