import { describe, expect, test } from 'bun:test';
import { mapGeminiImageSize } from '../../src/images/gemini-image-provider.ts';
import { mapOpenAiQuality } from '../../src/images/openai-image-provider.ts';

describe('mapOpenAiQuality', () => {
  test.each([
    ['gpt-image-1.5', 'low', 'low'],
    ['gpt-image-1.5', 'medium', 'medium'],
    ['gpt-image-1.5', 'high', 'high'],
    ['gpt-image-1.5', 'auto', undefined],
    ['dall-e-3', 'high', 'hd'],
    ['dall-e-3', 'low', 'standard'],
    ['dall-e-3', 'auto', undefined],
    ['dall-e-2', 'high', undefined],
  ] as const)('%p at %p sends %p', (model, quality, expected) => {
    expect(mapOpenAiQuality(model, quality)).toBe(expected);
  });
});

describe('mapGeminiImageSize', () => {
  test.each([
    ['low', undefined],
    ['medium', undefined],
    ['auto', undefined],
    ['high', '2K'],
  ] as const)('%p → %p', (quality, expected) => {
    expect(mapGeminiImageSize(quality)).toBe(expected);
  });
});
