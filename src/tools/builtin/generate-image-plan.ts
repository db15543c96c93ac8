/**
 * `createGenerateImageToolPlan` (docs/tools.md, "generate_image"): the pure decision of what one
 * generate_image call produces — prompt, how many images, at which quality, with which model, and the id of
 * every image — from the model's arguments and the user's effective settings. No I/O, no clock, no randomness
 * of its own: the id generator is a parameter, so the same inputs always give the same plan.
 *
 * The plan is the tool's reading of its arguments, so it lives with the tool; the shape it produces
 * (`GenerateImageToolPlan`) is what the image layer's `generateImages` runs, and is defined there.
 *
 * The argument schema and the settings are declared here too, because the plan's input types are
 * theirs: `executeTool` has validated the arguments against `generateImageParameters` (types, lengths,
 * `count` 1–4, the `quality` enum) and the settings reader has bounded the settings, so the plan checks
 * only what a schema cannot state.
 *
 * Rules (tests/tools/builtin/generate-image-plan.test.ts pins each one):
 * - `prompt` is 1–32,000 characters (OpenAI's limit), not blank, and is used as given.
 * - `count` is 1–4 (default 1); above `maxImagesPerCall` it is capped to it, not refused.
 * - `quality`: with `letAiDecideQuality` on, the model's value wins and `defaultQuality` fills in when
 *   it sends none; with it off the model's value is ignored (the advertised schema no longer offers
 *   it) and `defaultQuality` is used.
 * - `model` is an image model name (letters, digits, `.`, `-`, `_`, `:`, `/`): the model's choice, else
 *   `defaultModel`, else the fallback the caller passes (the default model of the first configured
 *   provider).
 */

import { type Static, Type } from '@sinclair/typebox';
import type { GenerateImageToolPlan, PlannedImage } from '../../images/generate-images.ts';
import { IMAGE_QUALITIES } from '../../images/image-provider.ts';
import { ToolArgumentError } from '../errors.ts';
import { MAX_TOOL_TIMEOUT_SECONDS, MIN_TOOL_TIMEOUT_SECONDS } from '../execution.ts';
import { StringEnum } from '../tool-schema.ts';
import { type SettingValues, setting } from '../tool-settings.ts';

/** Hard ceiling of `count` and of the `maxImagesPerCall` setting: a call makes 1–4 images. */
export const MAX_IMAGES_PER_CALL = 4;
export const MAX_PROMPT_LENGTH = 32_000;
export const MAX_MODEL_NAME_LENGTH = 100;
const MODEL_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/;

/** The arguments a model may pass; `count`'s maximum follows the `maxImagesPerCall` setting. */
export function generateImageParameters(maxImages: number) {
  return Type.Object({
    prompt: Type.String({
      description: 'What the image should show: subject, style, composition, colours, any text in it.',
      minLength: 1,
      maxLength: MAX_PROMPT_LENGTH,
    }),
    count: Type.Optional(
      Type.Integer({
        description: `How many images to create from the prompt (default 1, at most ${maxImages}).`,
        minimum: 1,
        maximum: maxImages,
      }),
    ),
    quality: Type.Optional(
      StringEnum(IMAGE_QUALITIES, {
        description:
          'Rendering quality; higher is slower. "auto" lets the image model decide. Default: the user\'s setting.',
      }),
    ),
    model: Type.Optional(
      Type.String({
        description:
          'Image model, e.g. "gpt-image-1.5" (OpenAI) or "gemini-2.5-flash-image" (Gemini). Default: the user\'s setting. Only set it when the user asks for a specific model.',
        minLength: 1,
        maxLength: MAX_MODEL_NAME_LENGTH,
      }),
    ),
  });
}

export type GenerateImageArguments = Static<ReturnType<typeof generateImageParameters>>;

export const GENERATE_IMAGE_SETTINGS = {
  timeoutSeconds: setting.integer({
    label: 'Timeout (seconds)',
    description: 'Budget for one call, all images together; unfinished images fail when it runs out.',
    min: MIN_TOOL_TIMEOUT_SECONDS,
    max: MAX_TOOL_TIMEOUT_SECONDS,
    default: 30,
  }),
  maxImagesPerCall: setting.integer({
    label: 'Images per call',
    description: 'The most images one call may create; larger requests are capped to it.',
    min: 1,
    max: MAX_IMAGES_PER_CALL,
    default: MAX_IMAGES_PER_CALL,
  }),
  defaultQuality: setting.select({
    label: 'Default quality',
    description: 'Quality used when the model does not choose one (or may not).',
    allowedValues: IMAGE_QUALITIES,
    default: 'auto',
  }),
  defaultModel: setting.string({
    label: 'Default model',
    description:
      'Image model used when the model does not name one; empty = the default of the first configured provider (gpt-image-1.5, else gemini-2.5-flash-image).',
    default: '',
  }),
  letAiDecideQuality: setting.boolean({
    label: 'Let the AI choose quality',
    description:
      'When off, the model is not offered a quality choice and the default quality is always used.',
    default: true,
  }),
};

export type GenerateImageSettings = SettingValues<typeof GENERATE_IMAGE_SETTINGS>;

export interface GenerateImagePlanOptions {
  /** Produces one fresh id per image (the tool passes `crypto.randomUUID`). */
  createId: () => string;
  /** Model used when neither the argument nor `defaultModel` names one. */
  fallbackModel: string;
}

/** Pure: the plan for one generate_image call. Throws ToolArgumentError on a blank prompt or a bad model name. */
export function createGenerateImageToolPlan(
  args: GenerateImageArguments,
  settings: GenerateImageSettings,
  options: GenerateImagePlanOptions,
): GenerateImageToolPlan {
  const { prompt } = args;
  if (prompt.trim() === '') throw new ToolArgumentError('Argument "prompt" must not be blank.');

  const requestedCount = args.count ?? 1;
  const count = Math.min(requestedCount, settings.maxImagesPerCall);
  const modelQuality = settings.letAiDecideQuality ? args.quality : undefined;

  const modelArgument = args.model;
  if (modelArgument !== undefined && !MODEL_NAME_PATTERN.test(modelArgument)) {
    throw new ToolArgumentError(
      `Argument "model" must be an image model name (letters, digits, ".", "-", "_", ":", "/"), got ${JSON.stringify(modelArgument)}.`,
    );
  }
  const defaultModel = settings.defaultModel.trim();
  const model = modelArgument ?? (defaultModel !== '' ? defaultModel : options.fallbackModel);

  const images: PlannedImage[] = [];
  for (let index = 0; index < count; index++) images.push({ index, id: options.createId() });

  return {
    prompt,
    count,
    requestedCount,
    capped: count < requestedCount,
    quality: modelQuality ?? settings.defaultQuality,
    qualitySource: modelQuality === undefined ? 'setting' : 'model',
    model,
    modelSource: modelArgument !== undefined ? 'model' : defaultModel !== '' ? 'setting' : 'fallback',
    images,
  };
}
