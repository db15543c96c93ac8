/**
 * The image provider contract: one image per `generate` call, abortable through its signal. Each
 * provider adapts one official SDK (openai-image-provider.ts, gemini-image-provider.ts); the rest of
 * the image code sees only this interface.
 */

import { createGeminiImageProvider } from './gemini-image-provider.ts';
import type { ImageQuality } from './generate-image-plan.ts';
import type { ImageGenerationConfig } from './image-generation-config.ts';
import { createOpenAiImageProvider } from './openai-image-provider.ts';

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

const providersByConfig = new WeakMap<ImageGenerationConfig, ImageProviders>();

/** The providers a configuration enables, built once per configuration object. */
export function getImageProviders(config: ImageGenerationConfig): ImageProviders {
  let providers = providersByConfig.get(config);
  if (!providers) {
    providers = {
      ...(config.openai ? { openai: createOpenAiImageProvider(config.openai) } : {}),
      ...(config.gemini ? { gemini: createGeminiImageProvider(config.gemini) } : {}),
    };
    providersByConfig.set(config, providers);
  }
  return providers;
}

/** The message of a provider failure, without SDK noise. */
export function describeProviderError(providerName: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `${providerName} failed: ${message || 'no message'}`;
}
