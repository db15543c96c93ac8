/**
 * The generate_image plan, fed as `executeTool` feeds it: the arguments validated against the tool's
 * schema (null as absent, types, bounds, the quality enum — the central validator's messages) and the
 * settings read through the tool's typed settings reader (a corrupted value reads as its default, a
 * number out of bounds is clamped). The plan itself adds the blank-prompt and model-name rules.
 */
import { describe, expect, test } from 'bun:test';
import { readArgumentsObject } from '../../../src/tools/arg-parsing.ts';
import { defaultArgumentValidator } from '../../../src/tools/argument-validator.ts';
import { generateImageTool } from '../../../src/tools/builtin/generate-image.ts';
import {
  createGenerateImageToolPlan,
  GENERATE_IMAGE_SETTINGS,
  type GenerateImageArguments,
} from '../../../src/tools/builtin/generate-image-plan.ts';
import { ToolArgumentError } from '../../../src/tools/errors.ts';
import { readSettingValues } from '../../../src/tools/tool-settings.ts';

function sequentialIds() {
  let next = 0;
  return () => `img-${next++}`;
}

function plan(args: unknown, settings: Record<string, unknown> = {}) {
  const validated = defaultArgumentValidator.validate(
    'generate_image',
    generateImageTool.definition.parameters,
    readArgumentsObject(args),
  ) as GenerateImageArguments;
  return createGenerateImageToolPlan(validated, readSettingValues(GENERATE_IMAGE_SETTINGS, settings), {
    createId: sequentialIds(),
    fallbackModel: 'fallback-model',
  });
}

describe('createGenerateImageToolPlan', () => {
  test('defaults: one image, auto quality, fallback model, one id per image', () => {
    expect(plan({ prompt: 'a red fox' })).toEqual({
      prompt: 'a red fox',
      count: 1,
      requestedCount: 1,
      capped: false,
      quality: 'auto',
      qualitySource: 'setting',
      model: 'fallback-model',
      modelSource: 'fallback',
      images: [{ index: 0, id: 'img-0' }],
    });
  });

  test.each([
    // [requested count, maxImagesPerCall setting, planned count, capped]
    [undefined, undefined, 1, false],
    [3, undefined, 3, false],
    [4, 4, 4, false],
    [4, 2, 2, true],
    [3, 1, 1, true],
    [2, 'junk', 2, false], // a corrupted setting falls back to the default (4)
    [4, 99, 4, false], // the setting is clamped to 1–4
  ] as const)('count %p with maxImagesPerCall %p plans %p image(s)', (count, max, planned, capped) => {
    const result = plan({ prompt: 'p', count }, max === undefined ? {} : { maxImagesPerCall: max });
    expect(result.count).toBe(planned);
    expect(result.capped).toBe(capped);
    expect(result.images.map((image) => image.id)).toEqual(
      Array.from({ length: planned }, (_, index) => `img-${index}`),
    );
  });

  test.each([
    // [model's quality, letAiDecideQuality, defaultQuality, planned quality, source]
    ['high', true, 'low', 'high', 'model'],
    [undefined, true, 'low', 'low', 'setting'],
    [null, true, 'medium', 'medium', 'setting'],
    ['high', false, 'low', 'low', 'setting'],
    [undefined, undefined, undefined, 'auto', 'setting'],
    ['low', undefined, 'not-a-quality', 'low', 'model'],
    [undefined, true, 'not-a-quality', 'auto', 'setting'],
  ] as const)(
    'quality %p, letAiDecideQuality %p, defaultQuality %p → %p',
    (quality, letAi, fallback, expected, source) => {
      const settings: Record<string, unknown> = {};
      if (letAi !== undefined) settings.letAiDecideQuality = letAi;
      if (fallback !== undefined) settings.defaultQuality = fallback;
      const result = plan({ prompt: 'p', quality }, settings);
      expect(result.quality).toBe(expected);
      expect(result.qualitySource).toBe(source);
    },
  );

  test.each([
    [
      { prompt: 'p', model: 'gemini-2.5-flash-image' },
      { defaultModel: 'gpt-image-1.5' },
      'gemini-2.5-flash-image',
      'model',
    ],
    [{ prompt: 'p' }, { defaultModel: 'gpt-image-1.5' }, 'gpt-image-1.5', 'setting'],
    [{ prompt: 'p' }, { defaultModel: '  ' }, 'fallback-model', 'fallback'],
    [{ prompt: 'p', model: null }, {}, 'fallback-model', 'fallback'],
  ] as const)('model %p with settings %p → %p (from %p)', (args, settings, expected, source) => {
    const result = plan(args, settings);
    expect(result.model).toBe(expected);
    expect(result.modelSource).toBe(source);
  });

  test.each([
    [{}, 'Argument "prompt" is required'],
    [{ prompt: '' }, 'Argument "prompt" must be at least 1 character long, got 0.'],
    [{ prompt: '   ' }, 'Argument "prompt" must not be blank.'],
    [{ prompt: 42 }, 'Argument "prompt" must be a string'],
    [{ prompt: 'p', count: 0 }, 'Argument "count" must be at least 1, got 0.'],
    [{ prompt: 'p', count: 5 }, 'Argument "count" must be at most 4, got 5.'],
    [{ prompt: 'p', count: '2' }, 'Argument "count" must be an integer'],
    [{ prompt: 'p', count: 1.5 }, 'Argument "count" must be an integer'],
    [{ prompt: 'p', quality: 'ultra' }, 'Argument "quality" must be one of "low", "medium", "high", "auto"'],
    [{ prompt: 'p', model: '../etc' }, 'Argument "model" must be an image model name'],
    [{ prompt: 'p', model: 7 }, 'Argument "model" must be a string'],
    ['a string', 'Tool arguments must be a JSON object'],
  ])('refuses %p', (args, message) => {
    expect(() => plan(args)).toThrow(ToolArgumentError);
    expect(() => plan(args)).toThrow(message);
  });

  test('is pure: the same inputs give the same plan', () => {
    const args = { prompt: 'p', count: 3, quality: 'high' };
    expect(plan(args, { maxImagesPerCall: 2 })).toEqual(plan(args, { maxImagesPerCall: 2 }));
  });
});
