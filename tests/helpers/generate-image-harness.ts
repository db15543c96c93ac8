/**
 * Shared setup of the generate_image tests: one replay image server per file, a fresh temp data
 * directory and in-memory repository per test, both providers configured against the server, and
 * `run(args)` = `executeTool('generate_image', …)` collecting progress events.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolProgressEvent } from '../../src/contracts/tool-progress-event.ts';
import {
  configureImageGeneration,
  type ImageGenerationConfig,
  resetImageGenerationConfiguration,
} from '../../src/images/image-generation-config.ts';
import { InMemoryImageRepository } from '../../src/images/image-repository.ts';
import { generateImageTool } from '../../src/tools/builtin/generate-image.ts';
import { executeTool, type ToolTimers } from '../../src/tools/execution.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { ToolExecutionResult } from '../../src/tools/types.ts';
import { manualTimers } from './manual-timers.ts';
import {
  type RecordedImageRequest,
  type ReplayAnswer,
  type ReplayImageServer,
  startReplayImageServer,
} from './replay-image-server.ts';
import { makeReachableSet } from './tool-context.ts';
import { waitUntil } from './wait-until.ts';

export interface GenerateImageHarness {
  readonly server: ReplayImageServer;
  readonly dataDirectory: string;
  readonly repository: InMemoryImageRepository;
  /** The script of the current test (reset to "always an image" before each test). */
  answer: (request: RecordedImageRequest, position: number) => ReplayAnswer;
  configure(providers: Pick<ImageGenerationConfig, 'openai' | 'gemini'>): void;
  openai(): Pick<ImageGenerationConfig, 'openai'>;
  gemini(): Pick<ImageGenerationConfig, 'gemini'>;
  run(
    args: unknown,
    options?: { saved?: unknown; signal?: AbortSignal; timers?: ToolTimers; withoutDataDirectory?: boolean },
  ): { result: Promise<ToolExecutionResult>; events: ToolProgressEvent[] };
}

/** Registers the hooks in the calling test file and returns the harness. */
export function useGenerateImageHarness(): GenerateImageHarness {
  const registry = new ToolRegistry();
  registry.register(generateImageTool);
  let server: ReplayImageServer | undefined;
  let dataDirectory = '';
  let repository = new InMemoryImageRepository();

  const harness: GenerateImageHarness = {
    get server() {
      if (!server) throw new Error('The replay server is not running.');
      return server;
    },
    get dataDirectory() {
      return dataDirectory;
    },
    get repository() {
      return repository;
    },
    answer: () => ({ kind: 'image' }),
    configure: (providers) => configureImageGeneration({ ...providers, repository }),
    openai: () => ({ openai: { apiKey: 'sk-test', baseURL: harness.server.openaiBaseURL } }),
    gemini: () => ({ gemini: { apiKey: 'gemini-test', baseURL: harness.server.url } }),
    run(args, options = {}) {
      const events: ToolProgressEvent[] = [];
      const result = executeTool(
        'generate_image',
        args,
        {
          userId: 'alice',
          reachable: makeReachableSet(),
          chatId: 'chat-1',
          ...(options.withoutDataDirectory ? {} : { dataDirectory }),
          now: () => 1_700_000_000_000,
          onProgress: (event) => events.push(event),
          ...(options.signal ? { signal: options.signal } : {}),
        },
        options.saved,
        { registry, ...(options.timers ? { timers: options.timers } : {}) },
      );
      return { result, events };
    },
  };

  beforeAll(() => {
    server = startReplayImageServer((request, position) => harness.answer(request, position));
  });
  afterAll(async () => {
    await server?.stop();
    resetImageGenerationConfiguration();
  });
  beforeEach(async () => {
    dataDirectory = await mkdtemp(join(tmpdir(), 'mango-images-'));
    repository = new InMemoryImageRepository();
    harness.server.reset();
    harness.answer = () => ({ kind: 'image' });
    harness.configure({ ...harness.openai(), ...harness.gemini() });
  });
  afterEach(async () => {
    await rm(dataDirectory, { recursive: true, force: true });
  });
  return harness;
}

/** Polls a condition (generous deadline; never a fixed sleep standing in for an event). */
export async function waitFor(condition: () => boolean, what: string): Promise<void> {
  if (!(await waitUntil(condition, 10_000))) throw new Error(`Timed out waiting for ${what}`);
}

export { manualTimers };
