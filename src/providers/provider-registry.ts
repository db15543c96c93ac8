/**
 * Which providers this server can use, from configuration: the variables of each adapter
 * (`provider-adapters.ts`; the table below is theirs), declared with every
 * other in `config/environment-variables.ts` and read through it. The environment is an injected record (the server passes the process environment, tests pass literals), so nothing here reads
 * global state. A provider whose key or base URL is missing or malformed is listed as unavailable with
 * the reason; asking for it returns `undefined` — it never throws.
 *
 * | id                  | required                     | optional                     |
 * |---------------------|------------------------------|------------------------------|
 * | `openai`            | `OPENAI_API_KEY`             | `OPENAI_BASE_URL`            |
 * | `openai-compatible` | `OPENAI_COMPATIBLE_BASE_URL` | `OPENAI_COMPATIBLE_API_KEY`  |
 * | `gemini`            | `GEMINI_API_KEY`             | `GEMINI_BASE_URL`            |
 * | `gemini-generate-content` (Gemini API) | `GEMINI_API_KEY` | `GEMINI_BASE_URL`            |
 * | `gemini-generate-content` (Vertex AI, `GOOGLE_GENAI_USE_VERTEXAI=true`) | `GOOGLE_CLOUD_PROJECT` | `GOOGLE_CLOUD_LOCATION` (default `global`), `GOOGLE_APPLICATION_CREDENTIALS`, `GOOGLE_VERTEX_BASE_URL` |
 * | `anthropic`         | `ANTHROPIC_API_KEY`          | `ANTHROPIC_BASE_URL`         |
 *
 * Default base URLs are passed to the SDKs explicitly, so an SDK never picks up a variable of its own.
 * The stall limits and the retry policy come from `provider-settings.ts`; a malformed one of those is
 * the only thing that makes the registry throw (at startup).
 */
import {
  type Environment,
  type OptionalTextVariableName,
  readVariable,
} from '../config/environment-variables.ts';
import { PROVIDER_IDS, type ProviderId } from '../contracts/provider-id.ts';
import type { VertexOptions } from './gemini-generate-content-provider.ts';
import { listProviderModels, ModelListError } from './model-lister.ts';
import type { ModelProvider } from './model-provider.ts';
import { PROVIDER_ADAPTERS, type ProviderAdapter } from './provider-adapters.ts';
import { readProviderStreamSettings } from './provider-settings.ts';
import type { ProviderClientOptions } from './streaming-provider.ts';

export type ProviderEnvironment = Environment;

export interface ProviderStatus {
  id: ProviderId;
  available: boolean;
  /** Why the provider is unavailable (names the missing or malformed variable). */
  reason?: string;
  /** The base URL requests go to, when available. */
  baseURL?: string;
}

export interface ProviderRegistry {
  /** Every provider id, available or not, in `PROVIDER_IDS` order. */
  list(): ProviderStatus[];
  status(id: ProviderId): ProviderStatus;
  /** The provider, or `undefined` when it is unavailable. Instances are created once and reused. */
  get(id: ProviderId): ModelProvider | undefined;
  /**
   * The ids of the models the provider offers, asked of it now (no cache: `model-catalog.ts` keeps one).
   * @throws ModelListError `provider_unavailable` when it is not configured, `model_list_failed` when it fails.
   */
  listModels(id: ProviderId, signal?: AbortSignal): Promise<string[]>;
}

export interface ProviderRegistryOptions {
  /** Overrides `MANGO_PROVIDER_MAX_RETRIES`. */
  maxRetries?: number;
  timeoutMs?: number;
  /** Vertex AI credentials instead of `GOOGLE_APPLICATION_CREDENTIALS` / Application Default Credentials. */
  vertexAuthOptions?: VertexOptions['googleAuthOptions'];
}

/** Sent as the key to OpenAI-compatible servers that need none (Ollama, llama.cpp, vLLM without auth). */
export const NO_API_KEY_PLACEHOLDER = 'no-key';

/** What resolving an adapter's status needs: its variables and defaults (Vertex AI swaps them). */
type ProviderConfig = Pick<
  ProviderAdapter,
  'keyVariable' | 'baseUrlVariable' | 'defaultBaseUrl' | 'keyRequired'
>;

/**
 * Why a base URL cannot be used, or `undefined` when it can. The value itself is never quoted: the reason
 * is served to every user of the API, and a key pasted into the wrong variable must not show up there.
 */
function baseUrlProblem(value: string, config: ProviderConfig): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${config.baseUrlVariable} must be an http(s) URL.`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `${config.baseUrlVariable} must be an http(s) URL.`;
  }
  if (url.username !== '' || url.password !== '') {
    return `${config.baseUrlVariable} must not embed credentials; set ${config.keyVariable} instead.`;
  }
  // The SDKs append their paths (`/responses`, `/v1/messages`…) to the base URL as text.
  if (/[?#]/.test(value)) return `${config.baseUrlVariable} must not have a query or fragment.`;
  return undefined;
}

type ResolvedStatus = ProviderStatus & {
  apiKey?: string;
  vertex?: Omit<VertexOptions, 'googleAuthOptions'> & { keyFile?: string };
};

const GEMINI_GENERATE_CONTENT = PROVIDER_ADAPTERS['gemini-generate-content'];

const VERTEX_SWITCH = 'GOOGLE_GENAI_USE_VERTEXAI' satisfies OptionalTextVariableName;

/**
 * `gemini-generate-content` speaks to the Gemini API with `GEMINI_API_KEY`, or to Vertex AI when
 * `GOOGLE_GENAI_USE_VERTEXAI` is true: a project is required, the location defaults to `global`, and the
 * token comes from the key file `GOOGLE_APPLICATION_CREDENTIALS` names or Application Default Credentials.
 */
function resolveGenerateContent(env: ProviderEnvironment): ResolvedStatus {
  const id: ProviderId = 'gemini-generate-content';
  const useVertex = readVariable(env, VERTEX_SWITCH)?.toLowerCase();
  if (useVertex !== undefined && !['true', 'false', '1', '0'].includes(useVertex)) {
    return { id, available: false, reason: `${VERTEX_SWITCH} must be true or false.` };
  }
  if (useVertex !== 'true' && useVertex !== '1') return resolveStatus(id, env, GEMINI_GENERATE_CONTENT);
  const project = readVariable(env, 'GOOGLE_CLOUD_PROJECT');
  if (!project)
    return { id, available: false, reason: `GOOGLE_CLOUD_PROJECT is not set (${VERTEX_SWITCH} is on).` };
  const location = readVariable(env, 'GOOGLE_CLOUD_LOCATION') ?? 'global';
  if (!/^[a-z0-9-]+$/.test(location)) {
    return {
      id,
      available: false,
      reason: 'GOOGLE_CLOUD_LOCATION must be a region name such as us-central1 or global.',
    };
  }
  const vertexConfig: ProviderConfig = {
    ...GEMINI_GENERATE_CONTENT,
    keyVariable: 'GOOGLE_APPLICATION_CREDENTIALS',
    baseUrlVariable: 'GOOGLE_VERTEX_BASE_URL',
    defaultBaseUrl:
      location === 'global'
        ? 'https://aiplatform.googleapis.com'
        : `https://${location}-aiplatform.googleapis.com`,
    keyRequired: false,
  };
  const status = resolveStatus(id, env, vertexConfig);
  const keyFile = readVariable(env, 'GOOGLE_APPLICATION_CREDENTIALS');
  return status.available
    ? {
        ...status,
        apiKey: NO_API_KEY_PLACEHOLDER,
        vertex: { project, location, ...(keyFile ? { keyFile } : {}) },
      }
    : status;
}

function resolveStatus(
  id: ProviderId,
  env: ProviderEnvironment,
  config: ProviderConfig = PROVIDER_ADAPTERS[id],
): ResolvedStatus {
  const apiKey = readVariable(env, config.keyVariable);
  const configuredBaseUrl = readVariable(env, config.baseUrlVariable);
  if (config.keyRequired && !apiKey) {
    return { id, available: false, reason: `${config.keyVariable} is not set.` };
  }
  const baseURL = configuredBaseUrl ?? config.defaultBaseUrl;
  if (!baseURL) return { id, available: false, reason: `${config.baseUrlVariable} is not set.` };
  const problem = baseUrlProblem(baseURL, config);
  if (problem) return { id, available: false, reason: problem };
  return {
    id,
    available: true,
    baseURL: baseURL.replace(/\/+$/, ''),
    apiKey: apiKey ?? NO_API_KEY_PLACEHOLDER,
  };
}

/** Builds the registry from an injected environment record. Never throws. */
export function createProviderRegistry(
  env: ProviderEnvironment,
  options: ProviderRegistryOptions = {},
): ProviderRegistry {
  const settings = readProviderStreamSettings(env);
  const statuses = new Map(
    PROVIDER_IDS.map((id) => [
      id,
      id === 'gemini-generate-content' ? resolveGenerateContent(env) : resolveStatus(id, env),
    ]),
  );
  const instances = new Map<ProviderId, ModelProvider>();
  const publicStatus = (id: ProviderId): ProviderStatus => {
    const { apiKey: _apiKey, vertex: _vertex, ...status } = statuses.get(id)!;
    return status;
  };
  return {
    list: () => PROVIDER_IDS.map(publicStatus),
    status: publicStatus,
    async listModels(id, signal) {
      const status = statuses.get(id);
      if (!status?.available || !status.baseURL || !status.apiKey) {
        throw new ModelListError(
          'provider_unavailable',
          `Provider "${id}" is not available: ${status?.reason ?? 'it is not configured.'}`,
        );
      }
      return listProviderModels(
        id,
        {
          apiKey: status.apiKey,
          baseURL: status.baseURL,
          ...vertexClientOptions(status, options),
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        },
        signal,
      );
    },
    get(id) {
      const status = statuses.get(id);
      if (!status?.available || !status.baseURL || !status.apiKey) return undefined;
      let provider = instances.get(id);
      if (!provider) {
        const clientOptions: ProviderClientOptions = {
          apiKey: status.apiKey,
          baseURL: status.baseURL,
          maxRetries: options.maxRetries ?? settings.maxRetries,
          maxRetryWaitSeconds: settings.maxRetryWaitSeconds,
          timeouts: settings.timeouts,
          ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        };
        provider = PROVIDER_ADAPTERS[id].create({
          ...clientOptions,
          ...vertexClientOptions(status, options),
        });
        instances.set(id, provider);
      }
      return provider;
    },
  };
}

/**
 * The `vertex` client option of a status resolved for Vertex AI (none otherwise): its project and
 * location, authenticated by the registry's auth options or else the status's key file.
 */
function vertexClientOptions(
  status: ResolvedStatus,
  options: ProviderRegistryOptions,
): { vertex?: VertexOptions } {
  const vertex = status.vertex;
  if (!vertex) return {};
  const googleAuthOptions =
    options.vertexAuthOptions ?? (vertex.keyFile ? { keyFilename: vertex.keyFile } : undefined);
  return {
    vertex: {
      project: vertex.project,
      location: vertex.location,
      ...(googleAuthOptions ? { googleAuthOptions } : {}),
    },
  };
}

/** Whether a string (an API body, a CLI flag) names a provider. */
export function isProviderId(value: unknown): value is ProviderId {
  return typeof value === 'string' && (PROVIDER_IDS as readonly string[]).includes(value);
}
