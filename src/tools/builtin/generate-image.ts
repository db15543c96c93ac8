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
import { Type } from '@sinclair/typebox';
import { type GenerateImageResult, generateImages } from '../../images/generate-images.ts';
import { getImageProviders } from '../../images/get-image-providers.ts';
import { detectImageFormat, writeImageFile } from '../../images/image-files.ts';
import {
  describeMissingImageProvider,
  getImageGenerationConfig,
  getImageRepository,
  getImageUrl,
  IMAGE_PROVIDER_VARIABLES,
  isImageGenerationConfigured,
} from '../../images/image-generation-config.ts';
import { getImageProviderIdForModel } from '../../images/image-provider.ts';
import { defineTool } from '../define-tool.ts';
import { ToolArgumentError, ToolExecutionError } from '../errors.ts';
import { registerTool } from '../registry.ts';
import type { ToolContext } from '../types.ts';
import {
  createGenerateImageToolPlan,
  GENERATE_IMAGE_SETTINGS,
  type GenerateImageArguments,
  type GenerateImageSettings,
  generateImageParameters,
  MAX_IMAGES_PER_CALL,
} from './generate-image-plan.ts';

const DESCRIPTION =
  'Creates one or more images from a text prompt with an image generation model. The images are shown ' +
  'to the user as they finish; the result lists each image with its id and URL, and any image that ' +
  'failed with the reason. Do not paste image data into your reply.';

async function execute(
  args: GenerateImageArguments,
  context: ToolContext,
  settings: GenerateImageSettings,
): Promise<GenerateImageResult> {
  const config = getImageGenerationConfig();
  const providers = getImageProviders(config);
  const fallbackModel = (providers.openai ?? providers.gemini)?.defaultModel ?? '';
  // The plan's own argument checks come first: a malformed call is a validation_failed the model can
  // correct, whatever the server's configuration.
  const plan = createGenerateImageToolPlan(args, settings, {
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

export const generateImageTool = defineTool({
  name: 'generate_image',
  description: DESCRIPTION,
  parameters: generateImageParameters(MAX_IMAGES_PER_CALL),
  // The model is offered `count` up to the user's maximum, and `quality` only when it may choose.
  advertise: ({ maxImagesPerCall, letAiDecideQuality }) => {
    const parameters = generateImageParameters(maxImagesPerCall);
    return { parameters: letAiDecideQuality ? parameters : Type.Omit(parameters, ['quality']) };
  },
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
  title: 'Image generation',
  summary: 'Lets the model create images with OpenAI Images or Gemini image models.',
  category: 'image',
  enabledByDefault: true,
  canDisable: true,
  settings: GENERATE_IMAGE_SETTINGS,
  execute,
  isAvailable: () => isImageGenerationConfigured(),
  reportsPartialResultOnAbort: true,
});

registerTool(generateImageTool);
