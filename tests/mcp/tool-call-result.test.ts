import { expect, test } from 'bun:test';
import { toCallToolResult } from '../../src/mcp/tool-call-result.ts';
import type { ToolExecutionResult } from '../../src/tools/types.ts';

test.each<[string, ToolExecutionResult, unknown]>([
  [
    'object result: JSON text and the same object as structured content',
    { ok: true, result: { a: 1, nested: { b: [true, null] } } },
    {
      content: [{ type: 'text', text: '{"a":1,"nested":{"b":[true,null]}}' }],
      structuredContent: { a: 1, nested: { b: [true, null] } },
    },
  ],
  [
    'string result: passed through as text, no structured content',
    { ok: true, result: 'plain words' },
    { content: [{ type: 'text', text: 'plain words' }] },
  ],
  [
    'array result: JSON text only (structured content must be an object)',
    { ok: true, result: [1, 2] },
    { content: [{ type: 'text', text: '[1,2]' }] },
  ],
  [
    'undefined result: null text',
    { ok: true, result: undefined },
    { content: [{ type: 'text', text: 'null' }] },
  ],
  [
    'a Date inside an object arrives as its JSON string in both blocks',
    { ok: true, result: { at: new Date(0) } },
    {
      content: [{ type: 'text', text: '{"at":"1970-01-01T00:00:00.000Z"}' }],
      structuredContent: { at: '1970-01-01T00:00:00.000Z' },
    },
  ],
  [
    'failure: isError with classification and message as text, no structured content',
    { ok: false, error: { classification: 'validation_failed', message: 'Bad "x".' } },
    {
      content: [
        { type: 'text', text: '{"error":{"classification":"validation_failed","message":"Bad \\"x\\"."}}' },
      ],
      isError: true,
    },
  ],
  [
    'truncated result: JSON text only (cut data is not the promised shape)',
    { ok: true, result: { matches: ['a'], truncated: true } },
    { content: [{ type: 'text', text: '{"matches":["a"],"truncated":true}' }] },
  ],
  [
    'untruncated result with a truncated field: structured as usual',
    { ok: true, result: { matches: ['a'], truncated: false } },
    {
      content: [{ type: 'text', text: '{"matches":["a"],"truncated":false}' }],
      structuredContent: { matches: ['a'], truncated: false },
    },
  ],
])('%s', (_name, envelope, expected) => {
  expect(toCallToolResult(envelope)).toEqual(expected as ReturnType<typeof toCallToolResult>);
});

const marker = (total: number, kept: number, budget: number) =>
  `\n[cut: this tool result is ${total} bytes, over the ${budget}-byte limit for one result, and only the first ${kept} bytes are shown above; ask for less: a narrower path, pattern or glob, a lower maxResults or maxLines, or a startLine to continue where this stops]`;

test.each<[string, ToolExecutionResult, number, string]>([
  [
    'a string result exactly at the budget is whole',
    { ok: true, result: 'x'.repeat(400) },
    400,
    'x'.repeat(400),
  ],
  [
    'an object result exactly at the budget is whole',
    { ok: true, result: { a: 'x'.repeat(392) } },
    400,
    `{"a":"${'x'.repeat(392)}"}`,
  ],
  ['a string result one byte over is cut with the marker', { ok: true, result: 'x'.repeat(401) }, 400, ''],
  [
    'an object result over the budget is cut with the marker',
    { ok: true, result: { a: 'é'.repeat(300) } },
    400,
    '',
  ],
  [
    'a failure over the budget is cut with the marker',
    { ok: false, error: { classification: 'execution_error', message: 'm'.repeat(500) } },
    400,
    '',
  ],
])('budget: %s', (_name, envelope, budget, wholeText) => {
  const result = toCallToolResult(envelope, budget);
  const text = (result.content as { text: string }[])[0]!.text;
  expect(result.isError).toBe(envelope.ok ? undefined : true);
  expect(Buffer.byteLength(text)).toBeLessThanOrEqual(budget);
  if (wholeText !== '') {
    expect(text).toBe(wholeText);
    return;
  }
  expect(result.structuredContent).toBeUndefined();
  const full = envelope.ok
    ? typeof envelope.result === 'string'
      ? envelope.result
      : JSON.stringify(envelope.result)
    : JSON.stringify({ error: envelope.error });
  const kept = text.slice(0, text.indexOf('\n[cut: '));
  expect(full.startsWith(kept)).toBe(true);
  expect(text).toBe(kept + marker(Buffer.byteLength(full), Buffer.byteLength(kept), budget));
});
