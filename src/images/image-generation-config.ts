/**
 * Where generate_image gets its provider connections and its image repository. One injected object,
 * set once at start-up with `configureImageGeneration(config)`; until then it is read from the process
 * environment on first use. Nothing else in the image code reads the process environment.
 *
 * A provider counts as configured when its API key or its base URL is set: a local OpenAI-compatible
 * image server behind `OPENAI_BASE_URL` often needs no key.
 */
import { type Environment, readVariable } from '../config/environment-variables.ts';
import { processEnvironment } from '../config/process-environment.ts';
import { type ImageRepository, InMemoryImageRepository } from './image-repository.ts';

export interface ImageProviderConnection {
  apiKey: string;
  /** Base URL of the API (tests point it at a replay server); absent = the SDK's default. */
  baseURL?: string;
}

export interface ImageGenerationConfig {
  openai?: ImageProviderConnection;
  gemini?: ImageProviderConnection;
  /** Where image records are kept; default one process-wide in-memory repository. */
  repository?: ImageRepository;
  /** The URL a stored image is served under; default `/api/images/<id>`. */
  imageUrl?: (imageId: string) => string;
}

/** The environment variables that configure a provider, named in the "not configured" error. */
export const IMAGE_PROVIDER_VARIABLES = {
  openai: ['OPENAI_API_KEY', 'OPENAI_BASE_URL'],
  gemini: ['GEMINI_API_KEY', 'GEMINI_BASE_URL'],
} as const;

/** Key sent when only a base URL is configured (the SDKs refuse to start without one). */
const KEYLESS_PLACEHOLDER = 'not-needed';

function readConnection(
  apiKey: string | undefined,
  baseURL: string | undefined,
): ImageProviderConnection | undefined {
  if (apiKey === undefined && baseURL === undefined) return undefined;
  return { apiKey: apiKey ?? KEYLESS_PLACEHOLDER, ...(baseURL === undefined ? {} : { baseURL }) };
}

/** Pure: the provider connections an environment describes. */
export function readImageGenerationConfigFromEnv(env: Environment): ImageGenerationConfig {
  const openai = readConnection(readVariable(env, 'OPENAI_API_KEY'), readVariable(env, 'OPENAI_BASE_URL'));
  const gemini = readConnection(readVariable(env, 'GEMINI_API_KEY'), readVariable(env, 'GEMINI_BASE_URL'));
  return { ...(openai ? { openai } : {}), ...(gemini ? { gemini } : {}) };
}

const defaultRepository = new InMemoryImageRepository();
let current: ImageGenerationConfig | undefined;

/** Sets the configuration every later generate_image call uses (call once at start-up; tests too). */
export function configureImageGeneration(config: ImageGenerationConfig): void {
  current = config;
}

/** Forgets the configured object: the next use reads the process environment again (tests). */
export function resetImageGenerationConfiguration(): void {
  current = undefined;
}

/** The active configuration: the configured one, else the process environment's. */
export function getImageGenerationConfig(): ImageGenerationConfig {
  current ??= readImageGenerationConfigFromEnv(processEnvironment());
  return current;
}

export function getImageRepository(
  config: ImageGenerationConfig = getImageGenerationConfig(),
): ImageRepository {
  return config.repository ?? defaultRepository;
}

export function getImageUrl(
  imageId: string,
  config: ImageGenerationConfig = getImageGenerationConfig(),
): string {
  return config.imageUrl ? config.imageUrl(imageId) : `/api/images/${encodeURIComponent(imageId)}`;
}

/** True when at least one image provider is configured. */
export function isImageGenerationConfigured(
  config: ImageGenerationConfig = getImageGenerationConfig(),
): boolean {
  return config.openai !== undefined || config.gemini !== undefined;
}

/** The message a direct call gets when no provider is configured. */
export function describeMissingImageProvider(): string {
  return (
    'Image generation is not configured on this server: no image provider is set up. ' +
    `The server operator configures one with ${IMAGE_PROVIDER_VARIABLES.openai.join(' / ')} (OpenAI Images) ` +
    `or ${IMAGE_PROVIDER_VARIABLES.gemini.join(' / ')} (Gemini image models). ` +
    'Tell the user that images cannot be generated here; do not retry.'
  );
}
