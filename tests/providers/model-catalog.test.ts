/**
 * The per-provider model cache: one provider call per TTL, concurrent requests share one call, a
 * failure is not cached, and providers are cached separately.
 */
import { describe, expect, test } from 'bun:test';
import type { ProviderId } from '../../src/contracts/provider-id.ts';
import { createModelCatalog } from '../../src/providers/model-catalog.ts';
import { ModelListError } from '../../src/providers/model-lister.ts';

function countingProviders(answers: Record<string, (string[] | Error)[]>) {
  const calls: ProviderId[] = [];
  return {
    calls,
    listModels: async (id: ProviderId) => {
      calls.push(id);
      const next = answers[id]!.shift()!;
      if (next instanceof Error) throw next;
      return next;
    },
  };
}

describe('createModelCatalog', () => {
  test('reuses an answer until the TTL has passed, per provider', async () => {
    let clock = 1000;
    const providers = countingProviders({ openai: [['a'], ['b']], anthropic: [['c']] });
    const catalog = createModelCatalog({ providers, now: () => clock, ttlMs: 100 });
    expect(await catalog.list('openai')).toEqual({ models: ['a'], fetchedAt: 1000 });
    clock = 1099;
    expect(await catalog.list('openai')).toEqual({ models: ['a'], fetchedAt: 1000 });
    expect(await catalog.list('anthropic')).toEqual({ models: ['c'], fetchedAt: 1099 });
    clock = 1100;
    expect(await catalog.list('openai')).toEqual({ models: ['b'], fetchedAt: 1100 });
    expect(providers.calls).toEqual(['openai', 'anthropic', 'openai']);
  });

  test('concurrent requests share one provider call', async () => {
    const providers = countingProviders({ gemini: [['g']] });
    const catalog = createModelCatalog({ providers, now: () => 0 });
    const answers = await Promise.all([
      catalog.list('gemini'),
      catalog.list('gemini'),
      catalog.list('gemini'),
    ]);
    expect(answers.map((answer) => answer.models)).toEqual([['g'], ['g'], ['g']]);
    expect(providers.calls).toEqual(['gemini']);
  });

  test('a failure is thrown to every waiter and not cached', async () => {
    const failure = new ModelListError('model_list_failed', 'openai did not list its models: 500');
    const providers = countingProviders({ openai: [failure, ['a']] });
    const catalog = createModelCatalog({ providers, now: () => 0 });
    const results = await Promise.allSettled([catalog.list('openai'), catalog.list('openai')]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect((results[0] as PromiseRejectedResult).reason).toBe(failure);
    expect(await catalog.list('openai')).toEqual({ models: ['a'], fetchedAt: 0 });
    expect(providers.calls).toEqual(['openai', 'openai']);
  });
});
