import { describe, expect, test } from 'bun:test';
import { ToolParameterError } from '../../src/tools/errors.ts';
import {
  getDefaultToolSettings,
  getSafeEffectiveToolSettings,
  getToolDefinitionsForTools,
  mergeToolSettings,
  normalizeToolParameters,
} from '../../src/tools/tool-settings-resolver.ts';
import { makeSettingsTool, makeTool, TEST_TOOL_UNIVERSAL_DEFAULTS } from '../helpers/fake-tools.ts';

const tool = makeSettingsTool();

function parameterError(run: () => unknown): ToolParameterError {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolParameterError) return error;
    throw error;
  }
  throw new Error('expected a ToolParameterError');
}

describe('getDefaultToolSettings', () => {
  test('copies enabledByDefault and defaultParameters', () => {
    const defaults = getDefaultToolSettings(tool);
    expect(defaults).toEqual({
      enabled: false,
      parameters: { ...tool.settings.defaultParameters, approval: 'never', approvalTimeoutSeconds: 600 },
    });
    (defaults.parameters.names as string[]).push('mutated');
    expect(tool.settings.defaultParameters.names).toEqual([]);
  });
});

describe('normalizeToolParameters', () => {
  const accepted: [string, unknown][] = [
    ['timeoutSeconds', 5],
    ['timeoutSeconds', 600],
    ['ratio', 0],
    ['ratio', 1],
    ['verbose', true],
    ['label', ''],
    ['quality', 'high'],
    ['names', ['a', 'b']],
    ['allowedPaths', [{ path: '~/src', enabled: false }]],
    // The settings every tool gets (tool-settings-metadata.ts), at their bounds.
    ['approval', 'always'],
    ['approval', 'never'],
    ['approvalTimeoutSeconds', 10],
    ['approvalTimeoutSeconds', 3600],
  ];
  test.each(accepted)('accepts %s = %p', (name, value) => {
    expect(normalizeToolParameters(tool, { [name]: value })).toEqual({ [name]: value });
  });

  const rejected: [string, unknown, string, string][] = [
    ['timeoutSeconds', 4, 'out_of_range', 'Tool "tunable" setting "Timeout" must be at least 5, got 4.'],
    ['timeoutSeconds', 601, 'out_of_range', 'Tool "tunable" setting "Timeout" must be at most 600, got 601.'],
    [
      'timeoutSeconds',
      5.5,
      'invalid_type',
      'Tool "tunable" setting "Timeout" must be an integer, got the number 5.5.',
    ],
    [
      'timeoutSeconds',
      '30',
      'invalid_type',
      'Tool "tunable" setting "Timeout" must be an integer, got the string "30".',
    ],
    [
      'ratio',
      Number.NaN,
      'invalid_type',
      'Tool "tunable" setting "Ratio" must be a finite number, got the number NaN.',
    ],
    ['ratio', 1.5, 'out_of_range', 'Tool "tunable" setting "Ratio" must be at most 1, got 1.5.'],
    [
      'verbose',
      'true',
      'invalid_type',
      'Tool "tunable" setting "Verbose" must be a boolean, got the string "true".',
    ],
    ['label', 3, 'invalid_type', 'Tool "tunable" setting "Label" must be a string, got the number 3.'],
    [
      'quality',
      'ultra',
      'not_allowed_value',
      'Tool "tunable" setting "Quality" must be one of "low", "medium", "high", got "ultra".',
    ],
    [
      'names',
      ['a', 1],
      'invalid_type',
      'Tool "tunable" setting "Names" must be a list of strings, got an array.',
    ],
    [
      'allowedPaths',
      [{ path: '/x' }],
      'invalid_type',
      'Tool "tunable" setting "Allowed" must be a list of {path: non-empty string, enabled: boolean} entries, got an array.',
    ],
    [
      'allowedPaths',
      [{ path: '', enabled: true }],
      'invalid_type',
      'Tool "tunable" setting "Allowed" must be a list of {path: non-empty string, enabled: boolean} entries, got an array.',
    ],
    [
      'approval',
      'sometimes',
      'not_allowed_value',
      'Tool "tunable" setting "Ask before each call" must be one of "never", "always", got "sometimes".',
    ],
    [
      'approvalTimeoutSeconds',
      9,
      'out_of_range',
      'Tool "tunable" setting "Seconds to wait for approval" must be at least 10, got 9.',
    ],
    [
      'approvalTimeoutSeconds',
      3601,
      'out_of_range',
      'Tool "tunable" setting "Seconds to wait for approval" must be at most 3600, got 3601.',
    ],
  ];
  test.each(rejected)('rejects %s = %p as %s', (name, value, code, message) => {
    const error = parameterError(() => normalizeToolParameters(tool, { [name]: value }));
    expect(error.code).toBe(code as ToolParameterError['code']);
    expect(error.parameter).toBe(name);
    expect(error.message).toBe(message);
  });

  test('rejects unknown names and lists the known ones', () => {
    const error = parameterError(() => normalizeToolParameters(tool, { timeout: 5 }));
    expect(error.code).toBe('unknown_parameter');
    expect(error.message).toBe(
      'Tool "tunable" has no setting "timeout"; its settings are timeoutSeconds, ratio, verbose, label, quality, names, allowedPaths, approval, approvalTimeoutSeconds.',
    );
  });

  test('rejects a non-object', () => {
    expect(parameterError(() => normalizeToolParameters(tool, [1])).message).toBe(
      'Tool "tunable" parameters must be an object, got an array.',
    );
  });
});

describe('mergeToolSettings', () => {
  test('defaults < saved < updates', () => {
    const merged = mergeToolSettings(
      tool,
      { enabled: true, parameters: { timeoutSeconds: 60, label: 'saved' } },
      { parameters: { timeoutSeconds: 90 } },
    );
    expect(merged).toEqual({
      enabled: true,
      parameters: {
        ...tool.settings.defaultParameters,
        ...TEST_TOOL_UNIVERSAL_DEFAULTS,
        timeoutSeconds: 90,
        label: 'saved',
      },
    });
  });

  test('updates.enabled wins over saved.enabled', () => {
    expect(mergeToolSettings(tool, { enabled: true }, { enabled: false }).enabled).toBe(false);
  });

  test('invalid saved or update values throw', () => {
    expect(parameterError(() => mergeToolSettings(tool, { parameters: { ratio: 2 } })).code).toBe(
      'out_of_range',
    );
    expect(parameterError(() => mergeToolSettings(tool, {}, { parameters: { bogus: 1 } })).code).toBe(
      'unknown_parameter',
    );
  });

  test('a tool that cannot be disabled refuses enabled: false and is always enabled', () => {
    const pinned = makeTool({
      name: 'pinned',
      settings: { ...makeTool({ name: 'p' }).settings, canDisable: false, enabledByDefault: true },
    });
    const error = parameterError(() => mergeToolSettings(pinned, undefined, { enabled: false }));
    expect(error.code).toBe('cannot_disable');
    expect(error.message).toBe('Tool "pinned" cannot be disabled.');
    expect(mergeToolSettings(pinned, { enabled: false }).enabled).toBe(true);
  });
});

describe('getSafeEffectiveToolSettings', () => {
  test('falls back to each default that is invalid, keeping valid values, and reports each', () => {
    const reported: string[] = [];
    const effective = getSafeEffectiveToolSettings(
      tool,
      { enabled: true, parameters: { timeoutSeconds: 'x', ratio: 0.25, gone: 1 } },
      (error) => reported.push(`${error.parameter}:${error.code}`),
    );
    expect(effective).toEqual({
      enabled: true,
      parameters: { ...tool.settings.defaultParameters, ...TEST_TOOL_UNIVERSAL_DEFAULTS, ratio: 0.25 },
    });
    expect(reported).toEqual(['timeoutSeconds:invalid_type', 'gone:unknown_parameter']);
  });

  test.each([['garbage'], [42], [[1, 2]], [{ enabled: 'yes' }], [{ parameters: 'x' }]])(
    'a corrupted row %p gives defaults',
    (saved) => {
      expect(getSafeEffectiveToolSettings(tool, saved, () => {})).toEqual(getDefaultToolSettings(tool));
    },
  );
});

describe('getToolDefinitionsForTools', () => {
  test('filters enabled tools and honours buildDefinition', () => {
    const built = makeTool({
      name: 'built',
      buildDefinition: (settings) => ({
        name: 'built',
        description: `limit ${String(settings.parameters.limit)}`,
        parameters: { type: 'object', properties: {}, required: [], additionalProperties: false },
      }),
      settings: {
        ...makeTool({ name: 'b' }).settings,
        defaultParameters: { limit: 2 },
        parameterDescriptors: [
          { name: 'limit', label: 'Limit', description: 'l', type: 'integer', min: 1, max: 4 },
        ],
      },
    });
    const definitions = getToolDefinitionsForTools([tool, built, makeTool({ name: 'plain' })], {
      built: { parameters: { limit: 3 } },
    });
    expect(definitions.map((definition) => definition.name)).toEqual(['built', 'plain']);
    expect(definitions[0]?.description).toBe('limit 3');
    expect(getToolDefinitionsForTools([tool], { tunable: { enabled: true } }).map((d) => d.name)).toEqual([
      'tunable',
    ]);
  });
});
