import { describe, expect, test } from 'bun:test';
import { generateImageTool } from '../../../src/tools/builtin/generate-image.ts';
import { getToolDefinition, getToolDefinitionsForTools } from '../../../src/tools/tool-settings-resolver.ts';
import { manualTimers, useGenerateImageHarness, waitFor } from '../../helpers/generate-image-harness.ts';

const harness = useGenerateImageHarness();

describe('generate_image budget and cancel', () => {
  test('timeout with one slow image: finished images are kept, the slow one fails with the reason and its request is aborted', async () => {
    harness.answer = (_request, position) => (position === 2 ? { kind: 'hang' } : { kind: 'image' });
    const { timers, pending } = manualTimers();
    const { result, events } = harness.run(
      { prompt: 'p', count: 3 },
      { timers, saved: { parameters: { timeoutSeconds: 5 } } },
    );
    await waitFor(
      () => events.filter((event) => event.type === 'image_completed').length === 2,
      'two images',
    );
    await waitFor(() => harness.server.requests.length === 3, 'the third request');
    expect(pending[0]?.milliseconds).toBe(5000);
    pending[0]?.callback();
    const outcome = await result;
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const summary = outcome.result as {
      images: unknown[];
      errors: { index: number; message: string }[];
      stopped: string;
    };
    expect(summary.images).toHaveLength(2);
    expect(summary.stopped).toBe('timeout');
    expect(summary.errors).toEqual([
      {
        index: expect.any(Number),
        message: expect.stringContaining('ran out of its 5-second budget (timeoutSeconds)'),
      },
    ]);
    expect(events.at(-1)).toMatchObject({
      type: 'image_failed',
      reason: summary.errors[0]?.message,
      total: 3,
      message: `image 3 of 3 failed: ${summary.errors[0]?.message}`,
    });
    await waitFor(() => harness.server.aborted === 1, 'the in-flight request to be aborted');
  });

  test('timeout before any image finished is a timeout failure', async () => {
    harness.answer = () => ({ kind: 'hang' });
    const { timers, pending } = manualTimers();
    const { result, events } = harness.run({ prompt: 'p', count: 2 }, { timers });
    await waitFor(() => harness.server.requests.length === 2, 'both requests');
    pending[0]?.callback();
    const outcome = await result;
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'timeout' } });
    expect(events.filter((event) => event.type === 'image_failed')).toHaveLength(2);
    await waitFor(() => harness.server.aborted === 2, 'both requests to be aborted');
  });

  test('cancel: unfinished images fail as cancelled, finished ones are returned', async () => {
    harness.answer = (_request, position) => (position === 0 ? { kind: 'image' } : { kind: 'hang' });
    const controller = new AbortController();
    const { result, events } = harness.run({ prompt: 'p', count: 2 }, { signal: controller.signal });
    await waitFor(() => events.some((event) => event.type === 'image_completed'), 'the first image');
    await waitFor(() => harness.server.requests.length === 2, 'the second request');
    controller.abort();
    const outcome = await result;
    expect(outcome).toMatchObject({
      ok: true,
      result: {
        stopped: 'cancelled',
        errors: [{ message: 'Tool "generate_image" was cancelled before it finished.' }],
      },
    });
    await waitFor(() => harness.server.aborted === 1, 'the in-flight request to be aborted');
  });
});

describe('generate_image budget and cancel on Gemini', () => {
  test('cancel aborts the in-flight generateContent request', async () => {
    harness.answer = () => ({ kind: 'hang' });
    const controller = new AbortController();
    const { result, events } = harness.run(
      { prompt: 'p', model: 'gemini-2.5-flash-image' },
      { signal: controller.signal },
    );
    await waitFor(() => harness.server.requests.length === 1, 'the request');
    controller.abort();
    expect(await result).toMatchObject({ ok: false, error: { classification: 'cancelled' } });
    expect(events.at(-1)).toMatchObject({
      type: 'image_failed',
      index: 0,
      reason: 'Tool "generate_image" was cancelled before it finished.',
    });
    await waitFor(() => harness.server.aborted === 1, 'the in-flight request to be aborted');
  });
});

describe('generate_image availability and definition', () => {
  test('not offered to models when no provider is configured; a direct call names the variables', async () => {
    harness.configure({});
    expect(getToolDefinitionsForTools([generateImageTool])).toEqual([]);
    const outcome = await harness.run({ prompt: 'p' }).result;
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'execution_error' } });
    if (outcome.ok) return;
    for (const variable of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'GEMINI_API_KEY', 'GEMINI_BASE_URL']) {
      expect(outcome.error.message).toContain(variable);
    }
    expect(harness.server.requests).toHaveLength(0);
  });

  test('offered once a provider is configured', () => {
    harness.configure(harness.openai());
    expect(getToolDefinitionsForTools([generateImageTool]).map((definition) => definition.name)).toEqual([
      'generate_image',
    ]);
  });

  test('buildDefinition advertises count maximum = maxImagesPerCall and drops quality when the AI may not decide', () => {
    const definition = getToolDefinition(generateImageTool, {
      enabled: true,
      parameters: { maxImagesPerCall: 2, letAiDecideQuality: false },
    });
    expect(definition.parameters.properties?.count).toMatchObject({ minimum: 1, maximum: 2 });
    expect(definition.parameters.properties).not.toHaveProperty('quality');
    expect(definition.parameters.additionalProperties).toBe(false);
    expect(generateImageTool.definition.parameters.properties?.count?.maximum).toBe(4);
    expect(generateImageTool.definition.parameters.properties?.quality?.enum).toEqual([
      'low',
      'medium',
      'high',
      'auto',
    ]);
  });

  test('settings descriptors: timeoutSeconds 5–600 default 30, the rest with bounds and defaults', () => {
    const descriptors = Object.fromEntries(
      generateImageTool.settings.parameterDescriptors.map((item) => [item.name, item]),
    );
    expect(descriptors.timeoutSeconds).toMatchObject({ type: 'integer', min: 5, max: 600, default: 30 });
    expect(descriptors.maxImagesPerCall).toMatchObject({ type: 'integer', min: 1, max: 4, default: 4 });
    expect(descriptors.defaultQuality).toMatchObject({
      type: 'select',
      allowedValues: ['low', 'medium', 'high', 'auto'],
      default: 'auto',
    });
    expect(descriptors.defaultModel).toMatchObject({ type: 'string', default: '' });
    expect(descriptors.letAiDecideQuality).toMatchObject({ type: 'boolean', default: true });
    expect(generateImageTool.settings.category).toBe('image');
  });
});
