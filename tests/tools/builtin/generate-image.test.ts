import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  configureImageGeneration,
  type ImageGenerationConfig,
  resetImageGenerationConfiguration,
} from '../../../src/images/image-generation-config.ts';
import { InMemoryImageRepository } from '../../../src/images/image-repository.ts';
import { generateImageTool } from '../../../src/tools/builtin/generate-image.ts';
import { executeTool, type ToolTimers } from '../../../src/tools/execution.ts';
import { ToolRegistry } from '../../../src/tools/registry.ts';
import { getToolDefinition, getToolDefinitionsForTools } from '../../../src/tools/settings-policy.ts';
import type { ToolProgressEvent } from '../../../src/tools/types.ts';
import {
  JPEG_BYTES,
  PNG_BYTES,
  type RecordedImageRequest,
  type ReplayAnswer,
  type ReplayImageServer,
  startReplayImageServer,
} from '../../helpers/replay-image-server.ts';

const registry = new ToolRegistry();
registry.register(generateImageTool);

/** The script of the current test: answers by prompt so concurrent requests stay deterministic. */
let answer: (request: RecordedImageRequest, position: number) => ReplayAnswer = () => ({ kind: 'image' });
let server: ReplayImageServer;
let dataDirectory: string;
let repository: InMemoryImageRepository;

beforeAll(() => {
  server = startReplayImageServer((request, position) => answer(request, position));
});
afterAll(async () => {
  await server.stop();
  resetImageGenerationConfiguration();
});

function configure(providers: Pick<ImageGenerationConfig, 'openai' | 'gemini'>) {
  configureImageGeneration({ ...providers, repository });
}
const openai = () => ({ openai: { apiKey: 'sk-test', baseURL: server.openaiBaseURL } });
const gemini = () => ({ gemini: { apiKey: 'gemini-test', baseURL: server.url } });

beforeEach(async () => {
  dataDirectory = await mkdtemp(join(tmpdir(), 'mango-images-'));
  repository = new InMemoryImageRepository();
  server.reset();
  answer = () => ({ kind: 'image' });
  configure({ ...openai(), ...gemini() });
});
afterEach(async () => {
  await rm(dataDirectory, { recursive: true, force: true });
});

function run(args: unknown, options: { saved?: unknown; signal?: AbortSignal; timers?: ToolTimers } = {}) {
  const events: ToolProgressEvent[] = [];
  const result = executeTool(
    'generate_image',
    args,
    {
      userId: 'alice',
      chatId: 'chat-1',
      dataDirectory,
      now: () => 1_700_000_000_000,
      onProgress: (event) => events.push(event),
      ...(options.signal ? { signal: options.signal } : {}),
    },
    options.saved,
    { registry, ...(options.timers ? { timers: options.timers } : {}) },
  );
  return { result, events };
}

/** Timers the test fires by hand: the budget without waiting for it. */
function manualTimers() {
  const pending: { callback: () => void; milliseconds: number; cleared: boolean }[] = [];
  const timers: ToolTimers = {
    setTimeout: (callback, milliseconds) => {
      const entry = { callback, milliseconds, cleared: false };
      pending.push(entry);
      return entry;
    },
    clearTimeout: (handle) => {
      (handle as { cleared: boolean }).cleared = true;
    },
  };
  return { timers, pending };
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await Bun.sleep(5);
  }
}

describe('generate_image with OpenAI Images', () => {
  test('generates, stores under the data directory, records per user and chat, and summarizes', async () => {
    const { result, events } = run({ prompt: 'a red fox', quality: 'high' });
    const outcome = await result;
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const summary = outcome.result as { count: number; images: { id: string; url: string }[] };
    expect(summary).toMatchObject({
      count: 1,
      model: 'gpt-image-1.5',
      quality: 'high',
      images: [{ index: 0, model: 'gpt-image-1.5', mimeType: 'image/png', byteLength: PNG_BYTES.length }],
    });
    expect(summary).not.toHaveProperty('errors');
    const image = summary.images[0];
    if (!image) throw new Error('no image');
    expect(image.url).toBe(`/api/images/${image.id}`);

    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      provider: 'openai',
      path: '/v1/images/generations',
      credential: 'Bearer sk-test',
      body: { model: 'gpt-image-1.5', prompt: 'a red fox', n: 1, quality: 'high' },
    });

    const filePath = join(dataDirectory, 'images', 'alice', `${image.id}.png`);
    expect(new Uint8Array(await readFile(filePath))).toEqual(new Uint8Array(PNG_BYTES));
    expect(await repository.listForChat('alice', 'chat-1')).toEqual([
      {
        id: image.id,
        userId: 'alice',
        chatId: 'chat-1',
        model: 'gpt-image-1.5',
        prompt: 'a red fox',
        mimeType: 'image/png',
        filePath,
        byteLength: PNG_BYTES.length,
        createdAt: 1_700_000_000_000,
      },
    ]);
    expect(events.map((event) => event.type)).toEqual(['image_generation_started', 'image_completed']);
    expect(events[1]).toMatchObject({ index: 0, id: image.id, url: image.url });
  });

  test('the content type comes from the bytes, not the provider label', async () => {
    answer = () => ({ kind: 'image', bytes: JPEG_BYTES });
    const outcome = await run({ prompt: 'p' }).result;
    expect(outcome).toMatchObject({ ok: true, result: { images: [{ mimeType: 'image/jpeg' }] } });
  });

  test('count is capped by maxImagesPerCall, and the model is told', async () => {
    const outcome = await run({ prompt: 'p', count: 4 }, { saved: { parameters: { maxImagesPerCall: 2 } } })
      .result;
    expect(outcome).toMatchObject({
      ok: true,
      result: {
        count: 2,
        notice: "4 images were requested; this user's maxImagesPerCall setting allows 2.",
      },
    });
    expect(server.requests).toHaveLength(2);
  });

  test.each([
    // [argument quality, saved settings, quality sent to the API (undefined = omitted)]
    ['low', {}, 'low'],
    [undefined, { defaultQuality: 'medium' }, 'medium'],
    ['high', { letAiDecideQuality: false, defaultQuality: 'low' }, 'low'],
    [undefined, {}, undefined], // auto: left to the API
  ])('quality %p with settings %p sends %p', async (quality, parameters, sent) => {
    const outcome = await run({ prompt: 'p', quality }, { saved: { parameters } }).result;
    expect(outcome.ok).toBe(true);
    expect(server.requests[0]?.body.quality).toBe(sent);
  });

  test('dall-e-3 gets its own quality words and asks for base64', async () => {
    await run({ prompt: 'p', model: 'dall-e-3', quality: 'high' }).result;
    expect(server.requests[0]?.body).toMatchObject({
      model: 'dall-e-3',
      quality: 'hd',
      response_format: 'b64_json',
    });
  });

  test('partial failure: one of three images fails, the others are returned, errors name its index', async () => {
    answer = (_request, position) =>
      position === 1
        ? { kind: 'error', status: 400, message: 'Your request was rejected by the safety system.' }
        : { kind: 'image' };
    const { result, events } = run({ prompt: 'p', count: 3 });
    const outcome = await result;
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const summary = outcome.result as {
      count: number;
      images: { index: number }[];
      errors: { index: number; message: string }[];
    };
    expect(summary.count).toBe(3);
    expect(summary.images).toHaveLength(2);
    expect(summary.errors).toHaveLength(1);
    const failedIndex = summary.errors[0]?.index;
    expect(summary.images.map((image) => image.index).sort()).toEqual(
      [0, 1, 2].filter((index) => index !== failedIndex),
    );
    expect(summary.errors[0]?.message).toContain('OpenAI Images failed: 400');
    expect(summary.errors[0]?.message).toContain('Your request was rejected by the safety system.');
    expect(summary).not.toHaveProperty('stopped');
    expect(events.filter((event) => event.type === 'image_completed')).toHaveLength(2);
    expect(events.filter((event) => event.type === 'image_failed')).toEqual([
      {
        type: 'image_failed',
        index: failedIndex,
        id: expect.any(String),
        message: summary.errors[0]?.message,
      },
    ]);
    expect(await repository.listForChat('alice', 'chat-1')).toHaveLength(2);
  });

  test('when every image fails the call fails with execution_error quoting the reasons', async () => {
    answer = () => ({ kind: 'error', status: 500, message: 'upstream exploded' });
    const outcome = await run({ prompt: 'p', count: 2 }).result;
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'execution_error' } });
    if (outcome.ok) return;
    expect(outcome.error.message).toContain(
      'No image was generated (2 attempted with model "gpt-image-1.5").',
    );
    expect(outcome.error.message).toContain('image 1: OpenAI Images failed: 500 upstream exploded');
  });

  test('a response without image data is a failure, not an empty image', async () => {
    answer = () => ({ kind: 'no_image' });
    const outcome = await run({ prompt: 'p' }).result;
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'execution_error' } });
    if (!outcome.ok) expect(outcome.error.message).toContain('returned no image data');
  });

  test('progress events arrive in completion order, each as soon as its image is known', async () => {
    let releaseFirst = () => {};
    const firstGate = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    answer = (_request, position) =>
      position === 0 ? { kind: 'image', after: firstGate } : { kind: 'image' };
    const { result, events } = run({ prompt: 'p', count: 2 });
    await waitFor(() => events.some((event) => event.type === 'image_completed'), 'the fast image');
    // The slow image is still being generated: only its sibling has been reported.
    expect(events.map((event) => event.type)).toEqual(['image_generation_started', 'image_completed']);
    releaseFirst();
    await result;
    expect(events[0]).toMatchObject({ type: 'image_generation_started', count: 2, model: 'gpt-image-1.5' });
    expect(events.map((event) => event.type)).toEqual([
      'image_generation_started',
      'image_completed',
      'image_completed',
    ]);
    const startedIds = events[0]?.imageIds as string[];
    expect(
      events
        .slice(1)
        .map((event) => event.id as string)
        .sort(),
    ).toEqual([...startedIds].sort());
  });
});

describe('generate_image with Gemini image models', () => {
  test('sends generateContent with the IMAGE modality and stores the inlineData image', async () => {
    const outcome = await run({ prompt: 'a lighthouse', model: 'gemini-2.5-flash-image', quality: 'high' })
      .result;
    expect(outcome).toMatchObject({
      ok: true,
      result: {
        count: 1,
        model: 'gemini-2.5-flash-image',
        images: [{ model: 'gemini-2.5-flash-image', mimeType: 'image/png' }],
      },
    });
    expect(server.requests[0]).toMatchObject({
      provider: 'gemini',
      path: '/v1/models/gemini-2.5-flash-image:generateContent',
      credential: 'gemini-test',
      prompt: 'a lighthouse',
      body: { generationConfig: { responseModalities: ['IMAGE'], imageConfig: { imageSize: '2K' } } },
    });
  });

  test('an API error reaches the model as status and message, not as a JSON dump', async () => {
    answer = (_request, position) =>
      position === 0
        ? { kind: 'error', status: 400, message: 'Image size 2K is not supported.' }
        : { kind: 'image' };
    const outcome = await run({ prompt: 'p', model: 'gemini-2.5-flash-image', count: 2 }).result;
    expect(outcome).toMatchObject({
      ok: true,
      result: { errors: [{ message: 'Gemini failed: 400 Image size 2K is not supported.' }] },
    });
  });

  test('a Gemini defaultModel while only OpenAI is configured is a server-side execution_error', async () => {
    configure(openai());
    const outcome = await run(
      { prompt: 'p' },
      { saved: { parameters: { defaultModel: 'gemini-2.5-flash-image' } } },
    ).result;
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'execution_error' } });
    if (!outcome.ok) expect(outcome.error.message).toContain('Check the defaultModel setting.');
  });

  test('is the default when only Gemini is configured', async () => {
    configure(gemini());
    const outcome = await run({ prompt: 'p' }).result;
    expect(outcome).toMatchObject({ ok: true, result: { model: 'gemini-2.5-flash-image' } });
  });

  test('a refusal without an image part quotes the model text', async () => {
    answer = () => ({ kind: 'no_image', text: 'I cannot draw that.' });
    const outcome = await run({ prompt: 'p', model: 'gemini-2.5-flash-image' }).result;
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'execution_error' } });
    if (!outcome.ok)
      expect(outcome.error.message).toContain('returned no image: finish reason STOP; I cannot draw that.');
  });

  test('a Gemini model asked for while only OpenAI is configured is a correctable argument error', async () => {
    configure(openai());
    const outcome = await run({ prompt: 'p', model: 'gemini-2.5-flash-image' }).result;
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'validation_failed' } });
    if (!outcome.ok) {
      expect(outcome.error.message).toContain('GEMINI_API_KEY / GEMINI_BASE_URL');
      expect(outcome.error.message).toContain('"gpt-image-1.5" (OpenAI Images)');
    }
  });
});

describe('generate_image budget and cancel', () => {
  test('timeout with one slow image: finished images are kept, the slow one fails with the reason and its request is aborted', async () => {
    answer = (_request, position) => (position === 2 ? { kind: 'hang' } : { kind: 'image' });
    const { timers, pending } = manualTimers();
    const { result, events } = run(
      { prompt: 'p', count: 3 },
      { timers, saved: { parameters: { timeoutSeconds: 5 } } },
    );
    await waitFor(
      () => events.filter((event) => event.type === 'image_completed').length === 2,
      'two images',
    );
    await waitFor(() => server.requests.length === 3, 'the third request');
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
    expect(events.at(-1)).toMatchObject({ type: 'image_failed', message: summary.errors[0]?.message });
    await waitFor(() => server.aborted === 1, 'the in-flight request to be aborted');
  });

  test('timeout before any image finished is a timeout failure', async () => {
    answer = () => ({ kind: 'hang' });
    const { timers, pending } = manualTimers();
    const { result, events } = run({ prompt: 'p', count: 2 }, { timers });
    await waitFor(() => server.requests.length === 2, 'both requests');
    pending[0]?.callback();
    const outcome = await result;
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'timeout' } });
    expect(events.filter((event) => event.type === 'image_failed')).toHaveLength(2);
    await waitFor(() => server.aborted === 2, 'both requests to be aborted');
  });

  test('cancel: unfinished images fail as cancelled, finished ones are returned', async () => {
    answer = (_request, position) => (position === 0 ? { kind: 'image' } : { kind: 'hang' });
    const controller = new AbortController();
    const { result, events } = run({ prompt: 'p', count: 2 }, { signal: controller.signal });
    await waitFor(() => events.some((event) => event.type === 'image_completed'), 'the first image');
    await waitFor(() => server.requests.length === 2, 'the second request');
    controller.abort();
    const outcome = await result;
    expect(outcome).toMatchObject({
      ok: true,
      result: {
        stopped: 'cancelled',
        errors: [{ message: 'Tool "generate_image" was cancelled before it finished.' }],
      },
    });
    await waitFor(() => server.aborted === 1, 'the in-flight request to be aborted');
  });
});

describe('generate_image budget and cancel on Gemini', () => {
  test('cancel aborts the in-flight generateContent request', async () => {
    answer = () => ({ kind: 'hang' });
    const controller = new AbortController();
    const { result, events } = run(
      { prompt: 'p', model: 'gemini-2.5-flash-image' },
      { signal: controller.signal },
    );
    await waitFor(() => server.requests.length === 1, 'the request');
    controller.abort();
    expect(await result).toMatchObject({ ok: false, error: { classification: 'cancelled' } });
    expect(events.at(-1)).toMatchObject({
      type: 'image_failed',
      index: 0,
      message: 'Tool "generate_image" was cancelled before it finished.',
    });
    await waitFor(() => server.aborted === 1, 'the in-flight request to be aborted');
  });
});

describe('generate_image availability and definition', () => {
  test('not offered to models when no provider is configured; a direct call names the variables', async () => {
    configure({});
    expect(getToolDefinitionsForTools([generateImageTool])).toEqual([]);
    const outcome = await run({ prompt: 'p' }).result;
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'execution_error' } });
    if (outcome.ok) return;
    for (const variable of ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'GEMINI_API_KEY', 'GEMINI_BASE_URL']) {
      expect(outcome.error.message).toContain(variable);
    }
    expect(server.requests).toHaveLength(0);
  });

  test('offered once a provider is configured', () => {
    configure(openai());
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
