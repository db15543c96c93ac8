/**
 * OpenAI Images through the official `openai` SDK: `POST {baseURL}/images/generations` with `n: 1`,
 * answered with `data[0].b64_json`. The base URL comes from the injected connection
 * (`OPENAI_BASE_URL`), so OpenAI-compatible image servers and test replay servers work the same way.
 *
 * Retries are off: the call's budget is short and shared by every image, and a retry would spend it
 * silently; a failed image is reported and the model may ask again.
 */
import OpenAI from 'openai';
import type { ImageProviderConnection } from './image-generation-config.ts';
import type {
  GeneratedImageData,
  ImageGenerationRequest,
  ImageProvider,
  ImageQuality,
} from './image-provider.ts';

export const OPENAI_DEFAULT_IMAGE_MODEL = 'gpt-image-1.5';

type OpenAiQuality = 'low' | 'medium' | 'high' | 'auto' | 'standard' | 'hd';

/** Pure: the `quality` value a model accepts, or undefined to leave it to the API. */
export function mapOpenAiQuality(model: string, quality: ImageQuality): OpenAiQuality | undefined {
  if (quality === 'auto') return undefined;
  if (/^dall-e-3/i.test(model)) return quality === 'high' ? 'hd' : 'standard';
  if (/^dall-e-2/i.test(model)) return undefined;
  return quality;
}

export function createOpenAiImageProvider(connection: ImageProviderConnection): ImageProvider {
  const client = new OpenAI({
    apiKey: connection.apiKey,
    ...(connection.baseURL ? { baseURL: connection.baseURL } : {}),
    maxRetries: 0,
  });
  return {
    id: 'openai',
    displayName: 'OpenAI Images',
    defaultModel: OPENAI_DEFAULT_IMAGE_MODEL,
    async generate(request: ImageGenerationRequest): Promise<GeneratedImageData> {
      const quality = mapOpenAiQuality(request.model, request.quality);
      const legacyModel = /^dall-e-/i.test(request.model);
      const response = await client.images.generate(
        {
          model: request.model,
          prompt: request.prompt,
          n: 1,
          ...(quality ? { quality } : {}),
          // Legacy models answer with a URL unless asked for base64; GPT image models always send base64.
          ...(legacyModel ? { response_format: 'b64_json' as const } : {}),
        },
        { signal: request.signal },
      );
      const image = response.data?.[0];
      if (!image?.b64_json) {
        throw new Error(`model "${request.model}" returned no image data.`);
      }
      return {
        bytes: Buffer.from(image.b64_json, 'base64'),
        ...(image.revised_prompt ? { revisedPrompt: image.revised_prompt } : {}),
      };
    },
  };
}
