import { describe, expect, test } from 'bun:test';
import { createBoundedFetch, OTHER_BODY_BYTES } from '../../src/mcp-client/bounded-fetch.ts';

function answering(body: string, contentType: string) {
  return async () =>
    new Response(body, { status: 200, headers: { 'content-type': contentType, 'content-length': '1' } });
}

describe('createBoundedFetch', () => {
  test('a JSON body comes back cut at the limit, marked, without its old length', async () => {
    const text = 'x'.repeat(10_000);
    const fetch = createBoundedFetch(
      answering(JSON.stringify({ result: { content: [{ type: 'text', text }] }, id: 1 }), 'application/json'),
      200,
    );
    const response = await fetch('http://example.test/mcp');
    expect(response.headers.get('content-length')).toBeNull();
    const message = await response.json();
    expect(message.id).toBe(1);
    expect(message.result['mango/cut']).toEqual({ bytes: 10_039, limitBytes: 200 });
  });

  test('an event stream is re-framed event by event', async () => {
    const fetch = createBoundedFetch(
      answering('data: {"id": 1}\n\n', 'text/event-stream; charset=utf-8'),
      200,
    );
    expect(await (await fetch('http://example.test/mcp')).text()).toBe('data: {"id":1}\n\n');
  });

  test('any other body is cut to a few KiB, enough for an error', async () => {
    const fetch = createBoundedFetch(answering('e'.repeat(100_000), 'text/plain'), 200);
    expect(await (await fetch('http://example.test/mcp')).text()).toBe('e'.repeat(OTHER_BODY_BYTES));
  });
});
