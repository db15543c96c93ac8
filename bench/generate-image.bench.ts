/**
 * generate_image overhead and concurrency against a local replay server that answers each image after
 * a fixed latency (a stand-in for a provider). Compares the tool (plan, concurrent SDK calls, files,
 * records, progress) with the bare SDK doing the same requests one after another and all at once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { configureImageGeneration } from '../src/images/image-generation-config.ts';
import { InMemoryImageRepository } from '../src/images/image-repository.ts';
import { generateImageTool } from '../src/tools/builtin/generate-image.ts';
import { executeTool } from '../src/tools/execution.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import { startReplayImageServer } from '../tests/helpers/replay-image-server.ts';
import { benchReachable } from './support/bench-reachable.ts';

const LATENCY_MS = 150;
const ROUNDS = 5;
const latency = () => new Promise<void>((resolve) => setTimeout(resolve, LATENCY_MS));
const server = startReplayImageServer(() => ({ kind: 'image', after: latency() }));
const dataDirectory = await mkdtemp(join(tmpdir(), 'mango-image-bench-'));
configureImageGeneration({
  openai: { apiKey: 'bench', baseURL: server.openaiBaseURL },
  repository: new InMemoryImageRepository(),
});
const registry = new ToolRegistry();
registry.register(generateImageTool);
const client = new OpenAI({ apiKey: 'bench', baseURL: server.openaiBaseURL, maxRetries: 0 });
const request = () => client.images.generate({ model: 'gpt-image-1.5', prompt: 'p', n: 1 });

async function median(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times.sort((left, right) => left - right)[Math.floor(ROUNDS / 2)] ?? 0;
}

try {
  for (const count of [1, 4]) {
    const tool = await median(async () => {
      const outcome = await executeTool(
        'generate_image',
        { prompt: 'p', count },
        { userId: 'bench', dataDirectory, reachable: benchReachable(dataDirectory) },
        undefined,
        { registry },
      );
      if (!outcome.ok) throw new Error(outcome.error.message);
    });
    const sequential = await median(async () => {
      for (let index = 0; index < count; index++) await request();
    });
    const concurrent = await median(() => Promise.all(Array.from({ length: count }, request)));
    console.log(
      `count ${count} (provider latency ${LATENCY_MS} ms): generate_image ${tool.toFixed(1)} ms · ` +
        `bare SDK sequential ${sequential.toFixed(1)} ms (${(sequential / tool).toFixed(2)}× the tool) · ` +
        `bare SDK concurrent ${concurrent.toFixed(1)} ms (tool overhead ${(tool - concurrent).toFixed(1)} ms)`,
    );
  }
} finally {
  await server.stop();
  await rm(dataDirectory, { recursive: true, force: true });
}
