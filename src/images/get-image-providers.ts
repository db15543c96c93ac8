/**
 * The image providers a configuration enables, built once per configuration object so every call of a
 * server shares one SDK client per provider. It sits above the contract in `image-provider.ts`, which
 * the provider adapters implement, so the contract never imports an adapter.
 */
import { createGeminiImageProvider } from './gemini-image-provider.ts';
import type { ImageGenerationConfig } from './image-generation-config.ts';
import type { ImageProviders } from './image-provider.ts';
import { createOpenAiImageProvider } from './openai-image-provider.ts';

const providersByConfig = new WeakMap<ImageGenerationConfig, ImageProviders>();

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
