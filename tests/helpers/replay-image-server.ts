/**
 * A replay image server on 127.0.0.1 (port 0) that speaks both providers' wire shapes, so the official
 * SDKs run unmodified against it:
 * - OpenAI Images: `POST /v1/images/generations` → `{created, data: [{b64_json}]}`; errors as
 *   `{error: {message, type, code}}`.
 * - Gemini: `POST /v1/models/{model}:generateContent` (the SDK's default API version; `v1beta` accepted too) → `{candidates: [{content: {parts:
 *   [{inlineData: {mimeType, data}}]}}]}`; errors as `{error: {code, message, status}}`.
 * A script decides each response; every request is recorded, and a `hang` answer waits until the
 * client aborts the request (counted in `aborted`).
 */

/** A valid 1×1 PNG. */
export const PNG_BYTES = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
/** The start of a JPEG (enough for content-type detection). */
export const JPEG_BYTES = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);

export interface RecordedImageRequest {
  provider: 'openai' | 'gemini';
  path: string;
  /** Gemini only: the model from the URL. */
  model?: string;
  body: Record<string, unknown>;
  /** `authorization` (OpenAI) or `x-goog-api-key` (Gemini). */
  credential: string | null;
  /** The prompt, read from either shape. */
  prompt: string;
}

export type ReplayAnswer =
  | { kind: 'image'; bytes?: Uint8Array; after?: Promise<void> }
  | { kind: 'error'; status: number; message: string }
  | { kind: 'no_image'; text?: string }
  | { kind: 'hang' };

export interface ReplayImageServer {
  url: string;
  openaiBaseURL: string;
  requests: RecordedImageRequest[];
  /** Requests whose client went away before an answer (in-flight aborts). */
  readonly aborted: number;
  /** Forgets recorded requests and aborts (between tests). */
  reset(): void;
  stop(): Promise<void>;
}

function readPrompt(provider: 'openai' | 'gemini', body: Record<string, unknown>): string {
  if (provider === 'openai') return String(body.prompt ?? '');
  const contents = body.contents as { parts?: { text?: string }[] }[] | undefined;
  return contents?.[0]?.parts?.map((part) => part.text ?? '').join('') ?? '';
}

export function startReplayImageServer(
  script: (request: RecordedImageRequest, position: number) => ReplayAnswer,
): ReplayImageServer {
  const requests: RecordedImageRequest[] = [];
  const state = { aborted: 0 };
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const geminiMatch = /^\/v1(?:beta)?\/models\/([^/:]+):generateContent$/.exec(path);
      const provider = path === '/v1/images/generations' ? 'openai' : geminiMatch ? 'gemini' : undefined;
      if (request.method !== 'POST' || !provider) {
        return Response.json({ error: { message: `No route ${request.method} ${path}` } }, { status: 404 });
      }
      const body = (await request.json()) as Record<string, unknown>;
      const recorded: RecordedImageRequest = {
        provider,
        path,
        ...(geminiMatch?.[1] ? { model: decodeURIComponent(geminiMatch[1]) } : {}),
        body,
        credential: request.headers.get(provider === 'openai' ? 'authorization' : 'x-goog-api-key'),
        prompt: readPrompt(provider, body),
      };
      requests.push(recorded);
      const answer = script(recorded, requests.length - 1);

      if (answer.kind === 'hang') {
        await new Promise<void>((resolve) => {
          if (request.signal.aborted) resolve();
          request.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        state.aborted++;
        return new Response(null, { status: 499 });
      }
      if (answer.kind === 'error') {
        return provider === 'openai'
          ? Response.json(
              { error: { message: answer.message, type: 'invalid_request_error', code: null } },
              { status: answer.status },
            )
          : Response.json(
              { error: { code: answer.status, message: answer.message, status: 'INVALID_ARGUMENT' } },
              { status: answer.status },
            );
      }
      if (answer.kind === 'no_image') {
        return provider === 'openai'
          ? Response.json({ created: 1, data: [] })
          : Response.json({
              candidates: [
                {
                  content: { role: 'model', parts: [{ text: answer.text ?? 'I cannot draw that.' }] },
                  finishReason: 'STOP',
                },
              ],
            });
      }
      if (answer.after) await answer.after;
      const data = Buffer.from(answer.bytes ?? PNG_BYTES).toString('base64');
      return provider === 'openai'
        ? Response.json({ created: 1_790_000_000, data: [{ b64_json: data }], output_format: 'png' })
        : Response.json({
            candidates: [
              {
                content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data } }] },
                finishReason: 'STOP',
              },
            ],
          });
    },
  });
  const url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    openaiBaseURL: `${url}/v1`,
    requests,
    get aborted() {
      return state.aborted;
    },
    reset: () => {
      requests.length = 0;
      state.aborted = 0;
    },
    stop: () => server.stop(true),
  };
}
