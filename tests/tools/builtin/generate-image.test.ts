import { describe, expect, test } from 'bun:test';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { useGenerateImageHarness, waitFor } from '../../helpers/generate-image-harness.ts';
import { JPEG_BYTES, PNG_BYTES } from '../../helpers/replay-image-server.ts';

const harness = useGenerateImageHarness();

describe('generate_image with OpenAI Images', () => {
  test('a caller that gives no data directory gets a refusal before any provider request', async () => {
    const outcome = await harness.run({ prompt: 'a red fox' }, { withoutDataDirectory: true }).result;
    expect(outcome).toEqual({
      ok: false,
      error: {
        classification: 'execution_error',
        message:
          'generate_image cannot store images here: this caller gave the tool no data directory to keep them in.',
      },
    });
    expect(harness.server.requests).toHaveLength(0);
  });

  test('generates, stores under the data directory, records per user and chat, and summarizes', async () => {
    const { result, events } = harness.run({ prompt: 'a red fox', quality: 'high' });
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

    expect(harness.server.requests).toHaveLength(1);
    expect(harness.server.requests[0]).toMatchObject({
      provider: 'openai',
      path: '/v1/images/generations',
      credential: 'Bearer sk-test',
      body: { model: 'gpt-image-1.5', prompt: 'a red fox', n: 1, quality: 'high' },
    });

    const filePath = join(harness.dataDirectory, 'images', 'alice', `${image.id}.png`);
    expect(new Uint8Array(await readFile(filePath))).toEqual(new Uint8Array(PNG_BYTES));
    expect(await harness.repository.listForChat('alice', 'chat-1')).toEqual([
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
    // What an MCP client shows as the progress text ("image n of N").
    expect(events.map(({ total, message }) => ({ total, message }))).toEqual([
      { total: 1, message: 'generating 1 image with gpt-image-1.5' },
      { total: 1, message: 'image 1 of 1 done' },
    ]);
  });

  test('the content type comes from the bytes, not the provider label', async () => {
    harness.answer = () => ({ kind: 'image', bytes: JPEG_BYTES });
    const outcome = await harness.run({ prompt: 'p' }).result;
    expect(outcome).toMatchObject({ ok: true, result: { images: [{ mimeType: 'image/jpeg' }] } });
  });

  test('count is capped by maxImagesPerCall, and the model is told', async () => {
    const outcome = await harness.run(
      { prompt: 'p', count: 4 },
      { saved: { parameters: { maxImagesPerCall: 2 } } },
    ).result;
    expect(outcome).toMatchObject({
      ok: true,
      result: {
        count: 2,
        notice: "4 images were requested; this user's maxImagesPerCall setting allows 2.",
      },
    });
    expect(harness.server.requests).toHaveLength(2);
  });

  test.each([
    // [argument quality, saved settings, quality sent to the API (undefined = omitted)]
    ['low', {}, 'low'],
    [undefined, { defaultQuality: 'medium' }, 'medium'],
    ['high', { letAiDecideQuality: false, defaultQuality: 'low' }, 'low'],
    [undefined, {}, undefined], // auto: left to the API
  ])('quality %p with settings %p sends %p', async (quality, parameters, sent) => {
    const outcome = await harness.run({ prompt: 'p', quality }, { saved: { parameters } }).result;
    expect(outcome.ok).toBe(true);
    expect(harness.server.requests[0]?.body.quality).toBe(sent);
  });

  test('dall-e-3 gets its own quality words and asks for base64', async () => {
    await harness.run({ prompt: 'p', model: 'dall-e-3', quality: 'high' }).result;
    expect(harness.server.requests[0]?.body).toMatchObject({
      model: 'dall-e-3',
      quality: 'hd',
      response_format: 'b64_json',
    });
  });

  test('partial failure: one of three images fails, the others are returned, errors name its index', async () => {
    harness.answer = (_request, position) =>
      position === 1
        ? { kind: 'error', status: 400, message: 'Your request was rejected by the safety system.' }
        : { kind: 'image' };
    const { result, events } = harness.run({ prompt: 'p', count: 3 });
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
    const failed = events.filter((event) => event.type === 'image_failed');
    expect(failed).toEqual([
      {
        type: 'image_failed',
        index: failedIndex,
        id: expect.any(String),
        reason: summary.errors[0]?.message,
        total: 3,
        completed: expect.any(Number),
        message: expect.stringMatching(/^image [123] of 3 failed: OpenAI Images failed: 400/),
      },
    ]);
    // `completed` is the count the message shows: the outcomes known when this one was.
    expect(String(failed[0]?.message)).toStartWith(`image ${failed[0]?.completed} of 3 failed`);
    expect(await harness.repository.listForChat('alice', 'chat-1')).toHaveLength(2);
  });

  test('when every image fails the call fails with execution_error quoting the reasons', async () => {
    harness.answer = () => ({ kind: 'error', status: 500, message: 'upstream exploded' });
    const outcome = await harness.run({ prompt: 'p', count: 2 }).result;
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'execution_error' } });
    if (outcome.ok) return;
    expect(outcome.error.message).toContain(
      'No image was generated (2 attempted with model "gpt-image-1.5").',
    );
    expect(outcome.error.message).toContain('image 1: OpenAI Images failed: 500 upstream exploded');
  });

  test('a response without image data is a failure, not an empty image', async () => {
    harness.answer = () => ({ kind: 'no_image' });
    const outcome = await harness.run({ prompt: 'p' }).result;
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'execution_error' } });
    if (!outcome.ok) expect(outcome.error.message).toContain('returned no image data');
  });

  test('progress events arrive in completion order, each as soon as its image is known', async () => {
    let releaseFirst = () => {};
    const firstGate = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    harness.answer = (_request, position) =>
      position === 0 ? { kind: 'image', after: firstGate } : { kind: 'image' };
    const { result, events } = harness.run({ prompt: 'p', count: 2 });
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
    const outcome = await harness.run({
      prompt: 'a lighthouse',
      model: 'gemini-2.5-flash-image',
      quality: 'high',
    }).result;
    expect(outcome).toMatchObject({
      ok: true,
      result: {
        count: 1,
        model: 'gemini-2.5-flash-image',
        images: [{ model: 'gemini-2.5-flash-image', mimeType: 'image/png' }],
      },
    });
    expect(harness.server.requests[0]).toMatchObject({
      provider: 'gemini',
      path: '/v1/models/gemini-2.5-flash-image:generateContent',
      credential: 'gemini-test',
      prompt: 'a lighthouse',
      body: { generationConfig: { responseModalities: ['IMAGE'], imageConfig: { imageSize: '2K' } } },
    });
  });

  test('an API error reaches the model as status and message, not as a JSON dump', async () => {
    harness.answer = (_request, position) =>
      position === 0
        ? { kind: 'error', status: 400, message: 'Image size 2K is not supported.' }
        : { kind: 'image' };
    const outcome = await harness.run({ prompt: 'p', model: 'gemini-2.5-flash-image', count: 2 }).result;
    expect(outcome).toMatchObject({
      ok: true,
      result: { errors: [{ message: 'Gemini failed: 400 Image size 2K is not supported.' }] },
    });
  });

  test('a Gemini defaultModel while only OpenAI is configured is a server-side execution_error', async () => {
    harness.configure(harness.openai());
    const outcome = await harness.run(
      { prompt: 'p' },
      { saved: { parameters: { defaultModel: 'gemini-2.5-flash-image' } } },
    ).result;
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'execution_error' } });
    if (!outcome.ok) expect(outcome.error.message).toContain('Check the defaultModel setting.');
  });

  test('is the default when only Gemini is configured', async () => {
    harness.configure(harness.gemini());
    const outcome = await harness.run({ prompt: 'p' }).result;
    expect(outcome).toMatchObject({ ok: true, result: { model: 'gemini-2.5-flash-image' } });
  });

  test('a refusal without an image part quotes the model text', async () => {
    harness.answer = () => ({ kind: 'no_image', text: 'I cannot draw that.' });
    const outcome = await harness.run({ prompt: 'p', model: 'gemini-2.5-flash-image' }).result;
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'execution_error' } });
    if (!outcome.ok)
      expect(outcome.error.message).toContain('returned no image: finish reason STOP; I cannot draw that.');
  });

  test('a Gemini model asked for while only OpenAI is configured is a correctable argument error', async () => {
    harness.configure(harness.openai());
    const outcome = await harness.run({ prompt: 'p', model: 'gemini-2.5-flash-image' }).result;
    expect(outcome).toMatchObject({ ok: false, error: { classification: 'validation_failed' } });
    if (!outcome.ok) {
      expect(outcome.error.message).toContain('GEMINI_API_KEY / GEMINI_BASE_URL');
      expect(outcome.error.message).toContain('"gpt-image-1.5" (OpenAI Images)');
    }
  });
});
