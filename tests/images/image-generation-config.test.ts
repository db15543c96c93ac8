import { describe, expect, test } from 'bun:test';
import {
  describeMissingImageProvider,
  isImageGenerationConfigured,
  readImageGenerationConfigFromEnv,
} from '../../src/images/image-generation-config.ts';
import { getImageProviderIdForModel } from '../../src/images/image-provider.ts';

describe('readImageGenerationConfigFromEnv', () => {
  test.each([
    [{}, {}],
    [{ OPENAI_API_KEY: '  ' }, {}],
    [{ OPENAI_API_KEY: 'sk-1' }, { openai: { apiKey: 'sk-1' } }],
    [
      { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' },
      { openai: { apiKey: 'not-needed', baseURL: 'http://127.0.0.1:9/v1' } },
    ],
    [
      { GEMINI_API_KEY: 'g-1', GEMINI_BASE_URL: 'http://127.0.0.1:9' },
      { gemini: { apiKey: 'g-1', baseURL: 'http://127.0.0.1:9' } },
    ],
    [
      { OPENAI_API_KEY: 'sk-1', GEMINI_API_KEY: 'g-1' },
      { openai: { apiKey: 'sk-1' }, gemini: { apiKey: 'g-1' } },
    ],
  ])('%p → %p', (env, expected) => {
    const config = readImageGenerationConfigFromEnv(env);
    expect(config).toEqual(expected);
    expect(isImageGenerationConfigured(config)).toBe(Object.keys(expected).length > 0);
  });

  test('the not-configured message names every variable', () => {
    const message = describeMissingImageProvider();
    for (const variable of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'GEMINI_API_KEY', 'GEMINI_BASE_URL']) {
      expect(message).toContain(variable);
    }
  });
});

describe('getImageProviderIdForModel', () => {
  test.each([
    ['gpt-image-1.5', 'openai'],
    ['dall-e-3', 'openai'],
    ['flux-schnell', 'openai'], // OpenAI-compatible servers host other names
    ['gemini-2.5-flash-image', 'gemini'],
    ['Gemini-3-pro-image-preview', 'gemini'],
  ] as const)('%p → %p', (model, provider) => {
    expect(getImageProviderIdForModel(model)).toBe(provider);
  });
});
