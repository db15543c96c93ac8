/**
 * `createGenerateImageToolPlan` (docs/tools.md, "generate_image"): the pure decision of what one
 * generate_image call produces — prompt, how many images, at which quality, with which model, and the id of
 * every image — from the model's arguments and the user's effective settings. No I/O, no clock, no randomness
 * of its own: the id generator is a parameter, so the same inputs always give the same plan.
 *
 * The plan is the tool's reading of its arguments, so it lives with the tool; the shape it produces
 * (`GenerateImageToolPlan`) is what the image layer's `generateImages` runs, and is defined there.
 *
 * Rules (tests/tools/builtin/generate-image-plan.test.ts pins each one):
 * - `prompt` is required, 1–32,000 characters (OpenAI's limit), and is used as given.
 * - `count` is an integer 1–4 (default 1); above `maxImagesPerCall` it is capped to it, not refused.
 * - `quality` is one of low | medium | high | auto. With `letAiDecideQuality` on, the model's value
 *   wins and `defaultQuality` fills in when it sends none; with it off the model's value is ignored
 *   (not even validated, since the schema no longer offers it) and `defaultQuality` is used.
 * - `model` is the model's choice, else `defaultModel`, else the fallback the caller passes (the
 *   default model of the first configured provider).
 * Wrong types are refused with ToolArgumentError (validation_failed), never replaced by defaults.
 */

import type { GenerateImageToolPlan, PlannedImage } from '../../images/generate-images.ts';
import { IMAGE_QUALITIES, type ImageQuality } from '../../images/image-provider.ts';
import {
  clampIntegerSetting,
  getBooleanSetting,
  getStringSetting,
  optionalEnum,
  optionalInteger,
  optionalString,
  readArgumentsObject,
  requireString,
} from '../arg-parsing.ts';
import { ToolArgumentError } from '../errors.ts';

/** Hard ceiling of `count` and of the `maxImagesPerCall` setting: a call makes 1–4 images. */
export const MAX_IMAGES_PER_CALL = 4;
export const MAX_PROMPT_LENGTH = 32_000;
export const MAX_MODEL_NAME_LENGTH = 100;
const MODEL_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/;

/** Settings defaults (also the descriptors' defaults in the tool file). */
export const GENERATE_IMAGE_DEFAULTS = {
  timeoutSeconds: 30,
  maxImagesPerCall: MAX_IMAGES_PER_CALL,
  defaultQuality: 'auto' as ImageQuality,
  /** Empty = automatic: the default model of the first configured provider. */
  defaultModel: '',
  letAiDecideQuality: true,
};

export interface GenerateImagePlanOptions {
  /** Produces one fresh id per image (the tool passes `crypto.randomUUID`). */
  createId: () => string;
  /** Model used when neither the argument nor `defaultModel` names one. */
  fallbackModel: string;
}

/** Pure: the plan for one generate_image call. Throws ToolArgumentError on a malformed argument. */
export function createGenerateImageToolPlan(
  rawArgs: unknown,
  settings: Readonly<Record<string, unknown>>,
  options: GenerateImagePlanOptions,
): GenerateImageToolPlan {
  const args = readArgumentsObject(rawArgs);
  const prompt = requireString(args, 'prompt', {
    minLength: 1,
    maxLength: MAX_PROMPT_LENGTH,
    meaning: 'a description of the image to create',
  });
  if (prompt.trim() === '') throw new ToolArgumentError('Argument "prompt" must not be blank.');

  const requestedCount = optionalInteger(args, 'count', { min: 1, max: MAX_IMAGES_PER_CALL }) ?? 1;
  const maxImagesPerCall = clampIntegerSetting(settings, 'maxImagesPerCall', {
    min: 1,
    max: MAX_IMAGES_PER_CALL,
    fallback: GENERATE_IMAGE_DEFAULTS.maxImagesPerCall,
  });
  const count = Math.min(requestedCount, maxImagesPerCall);

  const defaultQuality = getStringSetting(
    settings,
    'defaultQuality',
    GENERATE_IMAGE_DEFAULTS.defaultQuality,
    IMAGE_QUALITIES,
  ) as ImageQuality;
  const letAiDecide = getBooleanSetting(
    settings,
    'letAiDecideQuality',
    GENERATE_IMAGE_DEFAULTS.letAiDecideQuality,
  );
  const modelQuality = letAiDecide ? optionalEnum(args, 'quality', IMAGE_QUALITIES) : undefined;

  const modelArgument = optionalString(args, 'model', {
    minLength: 1,
    maxLength: MAX_MODEL_NAME_LENGTH,
    meaning: 'an image model name such as "gpt-image-1.5" or "gemini-2.5-flash-image"',
  });
  if (modelArgument !== undefined && !MODEL_NAME_PATTERN.test(modelArgument)) {
    throw new ToolArgumentError(
      `Argument "model" must be an image model name (letters, digits, ".", "-", "_", ":", "/"), got ${JSON.stringify(modelArgument)}.`,
    );
  }
  const defaultModel = getStringSetting(settings, 'defaultModel', '').trim();
  const model = modelArgument ?? (defaultModel !== '' ? defaultModel : options.fallbackModel);

  const images: PlannedImage[] = [];
  for (let index = 0; index < count; index++) images.push({ index, id: options.createId() });

  return {
    prompt,
    count,
    requestedCount,
    capped: count < requestedCount,
    quality: modelQuality ?? defaultQuality,
    qualitySource: modelQuality === undefined ? 'setting' : 'model',
    model,
    modelSource: modelArgument !== undefined ? 'model' : defaultModel !== '' ? 'setting' : 'fallback',
    images,
  };
}
