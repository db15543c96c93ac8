/** The new-chat form's preselection and its setup hints for a server with no provider. */
import { describe, expect, test } from 'bun:test';
import { initialModelChoice, providerSetupHints, variablesNamedIn } from '../../web/model-choice.ts';

const providers = [
  { id: 'openai', available: false, reason: 'OPENAI_API_KEY is not set.' },
  { id: 'openai-compatible', available: true },
  { id: 'anthropic', available: true, defaultModel: 'claude-sonnet-4-5' },
];

describe('initialModelChoice', () => {
  test('the remembered choice wins while its provider is available', () => {
    expect(initialModelChoice(providers, { provider: 'anthropic', model: 'claude-haiku-4-5' })).toEqual({
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
    });
  });
  test('a remembered provider that is unavailable now falls back to the first available one', () => {
    expect(initialModelChoice(providers, { provider: 'openai', model: 'gpt-5.1' })).toEqual({
      provider: 'openai-compatible',
      model: '',
    });
  });
  test('nothing remembered: the first available provider with its default model', () => {
    expect(initialModelChoice(providers.slice(2), null)).toEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
    });
  });
  test('no available provider: no choice', () => {
    expect(initialModelChoice(providers.slice(0, 1), { provider: 'openai', model: 'x' })).toBeUndefined();
  });
});

describe('setup hints', () => {
  test('variables are read from the reason, in order, once each', () => {
    expect(variablesNamedIn('GOOGLE_CLOUD_PROJECT is not set (GOOGLE_GENAI_USE_VERTEXAI is on).')).toEqual([
      'GOOGLE_CLOUD_PROJECT',
      'GOOGLE_GENAI_USE_VERTEXAI',
    ]);
    expect(
      variablesNamedIn('OPENAI_BASE_URL must not embed credentials; set OPENAI_API_KEY instead.'),
    ).toEqual(['OPENAI_BASE_URL', 'OPENAI_API_KEY']);
    expect(variablesNamedIn('It is not configured.')).toEqual([]);
    expect(variablesNamedIn(undefined)).toEqual([]);
  });
  test('one hint per unavailable provider', () => {
    expect(providerSetupHints(providers)).toEqual([
      { provider: 'openai', variables: ['OPENAI_API_KEY'], reason: 'OPENAI_API_KEY is not set.' },
    ]);
  });
});
