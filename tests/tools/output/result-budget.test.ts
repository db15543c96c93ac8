import { describe, expect, test } from 'bun:test';
import { serializeToolOutput, truncateToByteBudget } from '../../../src/tools/output/result-budget.ts';

describe('truncateToByteBudget', () => {
  const cases = [
    { title: 'short ASCII fits', text: 'hello', budget: 1000, truncated: false },
    { title: 'exactly the budget fits', text: 'é'.repeat(600), budget: 1200, truncated: false },
    { title: 'one byte over is cut', text: 'a'.repeat(1001), budget: 1000, truncated: true },
    { title: 'two-byte characters are not split', text: 'é'.repeat(2000), budget: 1001, truncated: true },
    { title: 'four-byte characters are not split', text: '😀'.repeat(1000), budget: 1002, truncated: true },
  ];
  for (const { title, text, budget, truncated } of cases) {
    test(title, () => {
      const result = truncateToByteBudget(text, budget);
      expect(result.truncated).toBe(truncated);
      expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(budget);
      if (!truncated) {
        expect(result.text).toBe(text);
        return;
      }
      const [kept] = result.text.split('\n[cut: ');
      expect(text.startsWith(kept ?? '')).toBe(true);
      expect(kept).not.toContain('\uFFFD');
      expect(result.text).toContain(
        `[cut: this tool result is ${Buffer.byteLength(text)} bytes, over the ${budget}-byte limit for one result, and only the first ${Buffer.byteLength(kept ?? '')} bytes are shown above; `,
      );
    });
  }

  test('the marker names how to ask for less', () => {
    expect(truncateToByteBudget('x'.repeat(5000), 1000).text).toEndWith(
      '; ask for less: a narrower path, pattern or glob, a lower maxResults or maxLines, or a startLine to continue where this stops]',
    );
  });
});

describe('serializeToolOutput', () => {
  const cases = [
    { envelope: { ok: true, result: { a: 1 } } as const, output: '{"a":1}', ok: true },
    { envelope: { ok: true, result: undefined } as const, output: 'null', ok: true },
    { envelope: { ok: true, result: 'text' } as const, output: '"text"', ok: true },
    {
      envelope: { ok: false, error: { classification: 'not_found', message: 'No such file.' } } as const,
      output: '{"error":{"classification":"not_found","message":"No such file."}}',
      ok: false,
    },
    {
      envelope: { ok: true, result: { size: 10n } } as const,
      output:
        '{"error":{"classification":"execution_error","message":"The tool\'s result could not be serialized to JSON: JSON.stringify cannot serialize BigInt."}}',
      ok: false,
    },
  ];
  for (const { envelope, output, ok } of cases) {
    test(`serializes ${output.slice(0, 40)}`, () => {
      expect(serializeToolOutput(envelope)).toEqual({ ok, output, truncated: false });
    });
  }
});
