/**
 * The image provider contract: one image per `generate` call, abortable through its signal. Each
 * provider adapts one official SDK (openai-image-provider.ts, gemini-image-provider.ts); the rest of
 * the image code sees only this interface; `get-image-providers.ts` builds the configured ones.
 */
import { errorMessage } from '../errors/error-message.ts';

/** Qualities a caller may ask for; providers map them to their own knobs. */
export const IMAGE_QUALITIES = ['low', 'medium', 'high', 'auto'] as const;
export type ImageQuality = (typeof IMAGE_QUALITIES)[number];

export type ImageProviderId = 'openai' | 'gemini';

export interface ImageGenerationRequest {
  prompt: string;
  model: string;
  quality: ImageQuality;
  /** Fires on the call's budget or the user's cancel; the in-flight HTTP request is aborted. */
  signal: AbortSignal;
}

export interface GeneratedImageData {
  /** The encoded image file (PNG, JPEG, WebP or GIF). */
  bytes: Uint8Array;
  /** The prompt the provider actually used, when it rewrote it. */
  revisedPrompt?: string;
}

export interface ImageProvider {
  readonly id: ImageProviderId;
  /** Human name used in messages ("OpenAI Images"). */
  readonly displayName: string;
  /** The model used when neither the call nor the user's settings name one. */
  readonly defaultModel: string;
  /** Generates one image. Rejects with a message fit for the model on any provider failure. */
  generate(request: ImageGenerationRequest): Promise<GeneratedImageData>;
}

export type ImageProviders = Partial<Record<ImageProviderId, ImageProvider>>;

/**
 * Which provider serves a model: `gemini-*` names are Gemini image models; every other name goes to
 * the OpenAI Images API, which is also what OpenAI-compatible image servers speak.
 */
export function getImageProviderIdForModel(model: string): ImageProviderId {
  return /^gemini-/i.test(model) ? 'gemini' : 'openai';
}

/** The message of a provider failure, without SDK noise. */
export function describeProviderError(providerName: string, error: unknown): string {
  const message = errorMessage(error);
  return `${providerName} failed: ${message || 'no message'}`;
}
