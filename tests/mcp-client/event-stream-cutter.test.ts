import { describe, expect, test } from 'bun:test';
import { cutEventStream } from '../../src/mcp-client/event-stream-cutter.ts';

/** The re-framed stream for `text`, written in chunks of `chunk` bytes. */
async function reframe(text: string, limitBytes: number, chunk = 5): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let start = 0; start < bytes.length; start += chunk) {
        controller.enqueue(bytes.subarray(start, Math.min(bytes.length, start + chunk)));
      }
      controller.close();
    },
  });
  return await new Response(source.pipeThrough(cutEventStream(limitBytes))).text();
}

describe('cutEventStream', () => {
  test('events pass as their fields and one compact data line; comments are dropped', async () => {
    const stream =
      ': keep-alive\n' +
      'id: 1\nevent: message\ndata: {"jsonrpc": "2.0",\ndata:  "id": 3}\n\n' +
      'id: 2\r\ndata:\r\n\r\n' +
      'data:{"a":1}\r\rdata: {"b":2}';
    for (const chunk of [1, 4, 1000]) {
      expect(await reframe(stream, 1000, chunk)).toBe(
        'id: 1\nevent: message\ndata: {"jsonrpc":"2.0","id":3}\n\n' +
          'id: 2\n\n' +
          'data: {"a":1}\n\n' +
          'data: {"b":2}\n\n',
      );
    }
  });

  test('an event over the limit arrives cut, marked in its result', async () => {
    const text = 'x'.repeat(100_000);
    const out = await reframe(
      `data: {"result":{"content":[{"type":"text","text":"${text}"}]},"jsonrpc":"2.0","id":4}\n\n`,
      500,
      4096,
    );
    expect(out.startsWith('data: {"result":{"content":[{"type":"text","text":"xxx')).toBe(true);
    expect(out.endsWith(`"mango/cut":{"bytes":100039,"limitBytes":500}},"jsonrpc":"2.0","id":4}\n\n`)).toBe(
      true,
    );
    expect(Buffer.byteLength(out)).toBeLessThan(700);
  });

  test('data that is not JSON leaves the event without data', async () => {
    expect(await reframe('id: 9\ndata: not json\n\n', 100)).toBe('id: 9\n\n');
  });
});
