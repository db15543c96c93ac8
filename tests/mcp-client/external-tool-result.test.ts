import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  configureImageGeneration,
  resetImageGenerationConfiguration,
} from '../../src/images/image-generation-config.ts';
import { InMemoryImageRepository } from '../../src/images/image-repository.ts';
import { MAX_IMAGE_BYTES, mapExternalToolResult } from '../../src/mcp-client/external-tool-result.ts';
import { ToolError } from '../../src/tools/errors.ts';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]).toString('base64');
const directory = mkdtempSync(join(tmpdir(), 'mango-mcp-result-'));
const images = new InMemoryImageRepository();
const where = (options: { storeImages?: boolean } = {}) => ({
  server: 'srv',
  tool: 'draw',
  context: {
    userId: 'u1',
    chatId: 'c1',
    dataDirectory: options.storeImages === false ? undefined : directory,
    now: () => 42,
  },
});

beforeAll(() => configureImageGeneration({ repository: images }));
afterAll(() => {
  resetImageGenerationConfiguration();
  rmSync(directory, { recursive: true, force: true });
});

describe('mapExternalToolResult', () => {
  test('text, resources, links and audio in order; structured content kept', async () => {
    const mapped = await mapExternalToolResult(
      {
        content: [
          { type: 'text', text: 'hello' },
          { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'contents' } },
          { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA' } },
          { type: 'resource_link', uri: 'https://x.example/doc', name: 'doc', description: 'a doc' },
          { type: 'audio', data: 'AAAAAA==', mimeType: 'audio/wav' },
        ],
        structuredContent: { answer: 42 },
      },
      where(),
    );
    expect(mapped).toEqual({
      content: [
        { type: 'text', text: 'hello' },
        { type: 'resource', uri: 'file:///a.txt', mimeType: 'text/plain', text: 'contents' },
        {
          type: 'resource',
          uri: 'file:///b.bin',
          byteLength: 3,
          omitted: 'Binary resource contents are not passed on.',
        },
        { type: 'resource_link', uri: 'https://x.example/doc', name: 'doc', description: 'a doc' },
        { type: 'audio', mimeType: 'audio/wav', byteLength: 4, omitted: 'Audio is not passed on.' },
      ],
      structuredContent: { answer: 42 },
    });
  });

  test('an image is stored for the user and chat; one over the cap, not an image, or with nowhere to go is described', async () => {
    const mapped = await mapExternalToolResult(
      { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] },
      where(),
    );
    const block = mapped.content[0] as { id: string; url: string; byteLength: number };
    expect(block.url).toBe(`/api/images/${block.id}`);
    const record = await images.get(block.id);
    expect(record).toMatchObject({
      userId: 'u1',
      chatId: 'c1',
      model: 'mcp:srv',
      prompt: 'draw',
      mimeType: 'image/png',
      createdAt: 42,
    });
    expect(readFileSync(record?.filePath ?? '').toString('base64')).toBe(PNG);

    const large = Buffer.alloc(MAX_IMAGE_BYTES + 3).toString('base64');
    const refused = await mapExternalToolResult(
      {
        content: [
          { type: 'image', data: large, mimeType: 'image/png' },
          { type: 'image', data: Buffer.from('not an image').toString('base64'), mimeType: 'image/png' },
        ],
      },
      where(),
    );
    expect(refused.content).toEqual([
      {
        type: 'image',
        mimeType: 'image/png',
        omitted: `The image is ${MAX_IMAGE_BYTES + 3} bytes, over the ${MAX_IMAGE_BYTES}-byte cap.`,
      },
      { type: 'image', mimeType: 'image/png', omitted: 'The data is not a PNG, JPEG, WebP or GIF image.' },
    ]);
    const nowhere = await mapExternalToolResult(
      { content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] },
      where({ storeImages: false }),
    );
    expect(nowhere.content).toEqual([
      {
        type: 'image',
        mimeType: 'image/png',
        omitted: 'No data directory to store images in for this caller.',
      },
    ]);
  });

  test('isError becomes an execution_error with the server’s message', async () => {
    const failing = mapExternalToolResult(
      { content: [{ type: 'text', text: 'quota exceeded' }], isError: true },
      where(),
    );
    await expect(failing).rejects.toBeInstanceOf(ToolError);
    await expect(failing).rejects.toThrow('draw on the MCP server "srv" failed: quota exceeded');
    await expect(mapExternalToolResult({ content: [], isError: true }, where())).rejects.toThrow(
      'draw on the MCP server "srv" failed: it gave no message',
    );
  });
});
