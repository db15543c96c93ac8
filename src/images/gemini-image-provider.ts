/**
 * Gemini image models through the official `@google/genai` SDK:
 * `POST {baseURL}/v1/models/{model}:generateContent` (the SDK's default API version) asking for the IMAGE modality, answered with
 * an `inlineData` part (base64 bytes and a MIME type). The base URL comes from the injected connection
 * (`GEMINI_BASE_URL`).
 *
 * Gemini image models have one quality knob, the output size: "high" asks for 2K, every other quality
 * leaves the model's default (1K). A response without an image part is a failure that quotes the
 * finish or block reason and any text the model sent instead.
 */
import { type GenerateContentResponse, GoogleGenAI } from '@google/genai';
import type { ImageProviderConnection } from './image-generation-config.ts';
import type {
  GeneratedImageData,
  ImageGenerationRequest,
  ImageProvider,
  ImageQuality,
} from './image-provider.ts';

export const GEMINI_DEFAULT_IMAGE_MODEL = 'gemini-2.5-flash-image';

/** Pure: the `imageConfig.imageSize` for a quality, or undefined for the model's default. */
export function mapGeminiImageSize(quality: ImageQuality): string | undefined {
  return quality === 'high' ? '2K' : undefined;
}

/**
 * Pure: a readable message for a Gemini SDK error. `ApiError` carries the HTTP status and the whole JSON
 * error body as its message; the model needs `400 <the API's message>`.
 */
export function describeGeminiError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const status = (error as { status?: unknown }).status;
  if (typeof status !== 'number') return error.message;
  try {
    const body = JSON.parse(error.message) as { error?: { message?: unknown } };
    if (typeof body.error?.message === 'string') return `${status} ${body.error.message}`;
  } catch {
    // Not JSON: keep the message as it is.
  }
  return `${status} ${error.message}`;
}

export function createGeminiImageProvider(connection: ImageProviderConnection): ImageProvider {
  const client = new GoogleGenAI({
    apiKey: connection.apiKey,
    ...(connection.baseURL ? { httpOptions: { baseUrl: connection.baseURL } } : {}),
  });
  return {
    id: 'gemini',
    displayName: 'Gemini',
    defaultModel: GEMINI_DEFAULT_IMAGE_MODEL,
    async generate(request: ImageGenerationRequest): Promise<GeneratedImageData> {
      const imageSize = mapGeminiImageSize(request.quality);
      let response: GenerateContentResponse;
      try {
        response = await client.models.generateContent({
          model: request.model,
          contents: request.prompt,
          config: {
            responseModalities: ['IMAGE'],
            ...(imageSize ? { imageConfig: { imageSize } } : {}),
            abortSignal: request.signal,
          },
        });
      } catch (error) {
        if (request.signal.aborted) throw error;
        throw new Error(describeGeminiError(error), { cause: error });
      }
      const candidate = response.candidates?.[0];
      const parts = candidate?.content?.parts ?? [];
      const imagePart = parts.find((part) => part.inlineData?.data);
      if (imagePart?.inlineData?.data) {
        return { bytes: Buffer.from(imagePart.inlineData.data, 'base64') };
      }
      const reasons = [
        response.promptFeedback?.blockReason ? `prompt blocked (${response.promptFeedback.blockReason})` : '',
        candidate?.finishReason ? `finish reason ${candidate.finishReason}` : '',
        parts
          .map((part) => part.text ?? '')
          .join(' ')
          .trim()
          .slice(0, 300),
      ].filter((reason) => reason !== '');
      throw new Error(
        `model "${request.model}" returned no image${reasons.length > 0 ? `: ${reasons.join('; ')}` : ''}.`,
      );
    },
  };
}
