/**
 * generate_image (docs/tools.md, "generate_image"): creates 1–4 images during a text turn with an OpenAI
 * Images or Gemini image model. The plan is pure (`generate-image-plan.ts`, beside this file); this file
 * wires it to the configured providers, the data directory and the image repository.
 *
 * Availability: with no image provider configured the tool is not offered to models (`isAvailable`),
 * and a direct call fails with an `execution_error` naming the variables that configure one.
 * When the budget runs out or the user cancels, the images already finished are still returned
 * (`reportsPartialResultOnAbort`), and the unfinished ones are listed as failed with the reason.
 */
import { randomUUID } from 'node:crypto';
import { type GenerateImageResult, generateImages } from '../../images/generate-images.ts';
import { getImageProviders } from '../../images/get-image-providers.ts';
import { detectImageFormat, writeImageFile } from '../../images/image-file-store.ts';
import {
  describeMissingImageProvider,
  getImageGenerationConfig,
  getImageRepository,
  getImageUrl,
  IMAGE_PROVIDER_VARIABLES,
  isImageGenerationConfigured,
} from '../../images/image-generation-config.ts';
import { getImageProviderIdForModel, IMAGE_QUALITIES } from '../../images/image-provider.ts';
import { clampIntegerSetting, getBooleanSetting } from '../../tools/arg-parsing.ts';
import { ToolArgumentError, ToolExecutionError } from '../../tools/errors.ts';
import { registerTool } from '../../tools/registry.ts';
import type {
  EffectiveToolSettings,
  JsonSchema,
  RegisteredTool,
  ToolContext,
  ToolDefinition,
} from '../../tools/types.ts';
import {
  createGenerateImageToolPlan,
  GENERATE_IMAGE_DEFAULTS,
  MAX_IMAGES_PER_CALL,
  MAX_MODEL_NAME_LENGTH,
  MAX_PROMPT_LENGTH,
} from './generate-image-plan.ts';

const TOOL_NAME = 'generate_image';

function buildParameters(maxImages: number, offerQuality: boolean): JsonSchema {
  return {
    type: 'object',
    properties: {
      prompt: {
        type: 'string',
        description: 'What the image should show: subject, style, composition, colours, any text in it.',
        minLength: 1,
        maxLength: MAX_PROMPT_LENGTH,
      },
      count: {
        type: 'integer',
        description: `How many images to create from the prompt (default 1, at most ${maxImages}).`,
        minimum: 1,
        maximum: maxImages,
      },
      ...(offerQuality
        ? {
            quality: {
              type: 'string',
              enum: [...IMAGE_QUALITIES],
              description:
                'Rendering quality; higher is slower. "auto" lets the image model decide. Default: the user\'s setting.',
            },
          }
        : {}),
      model: {
        type: 'string',
        description:
          'Image model, e.g. "gpt-image-1.5" (OpenAI) or "gemini-2.5-flash-image" (Gemini). Default: the user\'s setting. Only set it when the user asks for a specific model.',
        minLength: 1,
        maxLength: MAX_MODEL_NAME_LENGTH,
      },
    },
    required: ['prompt'],
    additionalProperties: false,
  };
}

const DESCRIPTION =
  'Creates one or more images from a text prompt with an image generation model. The images are shown ' +
  'to the user as they finish; the result lists each image with its id and URL, and any image that ' +
  'failed with the reason. Do not paste image data into your reply.';

function buildDefinition(settings: EffectiveToolSettings): ToolDefinition {
  const maxImages = clampIntegerSetting(settings.parameters, 'maxImagesPerCall', {
    min: 1,
    max: MAX_IMAGES_PER_CALL,
    fallback: GENERATE_IMAGE_DEFAULTS.maxImagesPerCall,
  });
  const offerQuality = getBooleanSetting(
    settings.parameters,
    'letAiDecideQuality',
    GENERATE_IMAGE_DEFAULTS.letAiDecideQuality,
  );
  return { name: TOOL_NAME, description: DESCRIPTION, parameters: buildParameters(maxImages, offerQuality) };
}

async function execute(args: unknown, context: ToolContext): Promise<GenerateImageResult> {
  const config = getImageGenerationConfig();
  const providers = getImageProviders(config);
  const fallbackModel = (providers.openai ?? providers.gemini)?.defaultModel ?? '';
  // The plan validates the arguments first: a malformed call is a validation_failed the model can
  // correct, whatever the server's configuration: malformed arguments are rejected, never substituted.
  const plan = createGenerateImageToolPlan(args, context.settings.parameters, {
    createId: randomUUID,
    fallbackModel,
  });
  if (!isImageGenerationConfigured(config)) throw new ToolExecutionError(describeMissingImageProvider());

  const providerId = getImageProviderIdForModel(plan.model);
  const provider = providers[providerId];
  if (!provider) {
    const variables = IMAGE_PROVIDER_VARIABLES[providerId].join(' / ');
    const available = Object.values(providers)
      .map((item) => `"${item.defaultModel}" (${item.displayName})`)
      .join(', ');
    const message =
      `Model "${plan.model}" needs the ${providerId === 'gemini' ? 'Gemini' : 'OpenAI Images'} provider, ` +
      `which is not configured on this server (${variables}). Models that work here include ${available}.`;
    throw plan.modelSource === 'model'
      ? new ToolArgumentError(message)
      : new ToolExecutionError(`${message} Check the defaultModel setting.`);
  }

  const dataDirectory = context.dataDirectory;
  if (dataDirectory === undefined) {
    // The image store is the server's, never a tool path: without it there is nowhere safe to write.
    throw new ToolExecutionError(
      'generate_image cannot store images here: this caller gave the tool no data directory to keep them in.',
    );
  }
  const repository = getImageRepository(config);
  return generateImages(plan, {
    provider,
    signal: context.signal,
    onProgress: context.onProgress,
    storeImage: async (image, data) => {
      const format = detectImageFormat(data.bytes);
      if (!format) throw new Error('the provider returned data that is not a PNG, JPEG, WebP or GIF image.');
      const filePath = await writeImageFile(dataDirectory, context.userId, image.id, data.bytes, format);
      await repository.save({
        id: image.id,
        userId: context.userId,
        chatId: context.chatId,
        model: plan.model,
        prompt: plan.prompt,
        mimeType: format.mimeType,
        filePath,
        byteLength: data.bytes.byteLength,
        createdAt: context.now(),
      });
      return {
        url: getImageUrl(image.id, config),
        mimeType: format.mimeType,
        byteLength: data.bytes.byteLength,
      };
    },
  });
}

export const generateImageTool: RegisteredTool = {
  definition: buildDefinition({ enabled: true, parameters: { ...GENERATE_IMAGE_DEFAULTS } }),
  buildDefinition,
  // Adds new files only, through an external image provider; every call makes new images.
  traits: {
    readOnly: false,
    destructive: false,
    idempotent: false,
    openWorld: true,
    confirmBeforeEnable: false,
    resultView: 'images',
    approvalDefault: 'always',
  },
  settings: {
    title: 'Image generation',
    description: 'Lets the model create images with OpenAI Images or Gemini image models.',
    category: 'image',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: { ...GENERATE_IMAGE_DEFAULTS },
    parameterDescriptors: [
      {
        name: 'timeoutSeconds',
        label: 'Timeout (seconds)',
        description: 'Budget for one call, all images together; unfinished images fail when it runs out.',
        type: 'integer',
        min: 5,
        max: 600,
        default: GENERATE_IMAGE_DEFAULTS.timeoutSeconds,
      },
      {
        name: 'maxImagesPerCall',
        label: 'Images per call',
        description: 'The most images one call may create; larger requests are capped to it.',
        type: 'integer',
        min: 1,
        max: MAX_IMAGES_PER_CALL,
        default: GENERATE_IMAGE_DEFAULTS.maxImagesPerCall,
      },
      {
        name: 'defaultQuality',
        label: 'Default quality',
        description: 'Quality used when the model does not choose one (or may not).',
        type: 'select',
        allowedValues: [...IMAGE_QUALITIES],
        default: GENERATE_IMAGE_DEFAULTS.defaultQuality,
      },
      {
        name: 'defaultModel',
        label: 'Default model',
        description:
          'Image model used when the model does not name one; empty = the default of the first configured provider (gpt-image-1.5, else gemini-2.5-flash-image).',
        type: 'string',
        default: GENERATE_IMAGE_DEFAULTS.defaultModel,
      },
      {
        name: 'letAiDecideQuality',
        label: 'Let the AI choose quality',
        description:
          'When off, the model is not offered a quality choice and the default quality is always used.',
        type: 'boolean',
        default: GENERATE_IMAGE_DEFAULTS.letAiDecideQuality,
      },
    ],
  },
  execute,
  isAvailable: () => isImageGenerationConfigured(),
  reportsPartialResultOnAbort: true,
};

registerTool(generateImageTool);
