import { describe, expect, test } from 'bun:test';
import { MessageCutter } from '../../src/mcp-client/message-cutter.ts';
import { TRANSPORT_CUT_KEY, transportCutOf } from '../../src/mcp-client/transport-cut.ts';

const encoder = new TextEncoder();

/** The cutter's output for `text`, fed in chunks of `chunk` bytes. */
function cut(text: string, limitBytes: number, chunk = 7): string {
  const bytes = encoder.encode(text);
  const cutter = new MessageCutter(limitBytes);
  for (let start = 0; start < bytes.length; start += chunk) {
    cutter.feed(bytes, start, Math.min(bytes.length, start + chunk));
  }
  return new TextDecoder('utf-8', { fatal: true }).decode(cutter.finish());
}

function response(result: unknown): string {
  return JSON.stringify({ result, jsonrpc: '2.0', id: 7 });
}

describe('MessageCutter', () => {
  test('a message within the limit comes out as it went in, compact, in any chunking', () => {
    const message = {
      jsonrpc: '2.0',
      id: 'a"b',
      result: { content: [{ type: 'text', text: 'héllo "x"\n\\ 😀 \u0001' }], isError: false, n: -1.5e3 },
    };
    const pretty = JSON.stringify(message, null, 2);
    for (const chunk of [1, 3, 64, 1 << 20]) expect(cut(pretty, 1000, chunk)).toBe(JSON.stringify(message));
  });

  test('only whitespace is no message; an incomplete or malformed one throws', () => {
    expect(cut(' \r\t ', 10)).toBe('');
    expect(() => cut('{"a":', 10)).toThrow('The MCP message ended before its JSON did.');
    expect(() => cut('{"a" 1}', 10)).toThrow('Unexpected "1" in an MCP message.');
    expect(() => cut('[1] 2', 10)).toThrow('Unexpected "2" in an MCP message.');
    expect(() => cut('['.repeat(200), 10_000)).toThrow('An MCP message nests deeper than 128 levels.');
  });

  test('a long text is cut at the limit on a character boundary; the id after it still arrives', () => {
    const text = 'é'.repeat(10_000);
    const kept = JSON.parse(cut(response({ content: [{ type: 'text', text }] }), 1001, 4096));
    const prefix = Buffer.byteLength('{"result":{"content":[{"type":"text","text":"');
    // 1001 - prefix is odd: the two-byte character it would split is dropped whole.
    expect(kept.result.content[0].text).toBe('é'.repeat(Math.floor((1001 - prefix) / 2)));
    expect(kept.id).toBe(7);
    expect(kept.jsonrpc).toBe('2.0');
    expect(transportCutOf(kept.result)).toEqual({
      bytes: Buffer.byteLength(JSON.stringify({ content: [{ type: 'text', text }] })),
      limitBytes: 1001,
    });
  });

  test('an escape is never split', () => {
    const text = '\\n'.repeat(100);
    const kept = JSON.parse(cut(`{"result":{"content":[{"type":"text","text":"${text}"}]},"id":1}`, 60));
    expect(kept.result.content[0].text).toMatch(/^\n+$/);
  });

  test('items past the limit are left out, and an item that would lose a member goes whole', () => {
    const tools = Array.from({ length: 10 }, (_, index) => ({
      name: `tool_${index}`,
      description: 'd'.repeat(100),
      inputSchema: { type: 'object' },
    }));
    const kept = JSON.parse(cut(response({ tools }), 400));
    // Two whole tools fit; the third lost its inputSchema at the limit, so it is gone too.
    expect(kept.result.tools.map((tool: { name: string }) => tool.name)).toEqual(['tool_0', 'tool_1']);
    expect(kept.result.tools[1]).toEqual(tools[1]);
    expect(kept.result[TRANSPORT_CUT_KEY].limitBytes).toBe(400);
    expect(kept.id).toBe(7);
  });

  test('a base64 value is never cut: its item is left out whole', () => {
    const content = [
      { type: 'text', text: 'caption' },
      { type: 'image', mimeType: 'image/png', data: 'A'.repeat(5000) },
    ];
    const kept = JSON.parse(cut(response({ content }), 1000));
    expect(kept.result.content).toEqual([{ type: 'text', text: 'caption' }]);
    expect(transportCutOf(kept.result)?.limitBytes).toBe(1000);
    const whole = JSON.parse(cut(response({ content }), 10_000));
    expect(whole.result).toEqual({ content });
  });

  test('the message stays bounded however it is shaped', () => {
    const manyMembers = `{"result":{${Array.from({ length: 20_000 }, (_, index) => `"k${index}":1`).join(',')}},"id":1}`;
    const deepArrays = response({ content: Array.from({ length: 20_000 }, () => [[1, 2, 3]]) });
    for (const message of [manyMembers, deepArrays]) {
      const kept = cut(message, 1000, 1 << 16);
      expect(Buffer.byteLength(kept)).toBeLessThan(1000 + 4096 + 100);
      expect(JSON.parse(kept).id).toBe(message === manyMembers ? 1 : 7);
    }
  });

  test('a number longer than any real one is refused', () => {
    expect(() => cut(`{"id":${'9'.repeat(65)}}`, 1000)).toThrow(
      'An MCP message holds a number or literal over 64 bytes.',
    );
  });
});
