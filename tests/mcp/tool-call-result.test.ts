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
