import { describe, expect, test } from 'bun:test';
import { CUT_MARKER_PATTERN } from '../../../src/tools/output/cut-marker.ts';
import {
  DEFAULT_TOOL_OUTPUT_BUDGET_BYTES,
  resultBudgetOf,
  serializeToolOutput,
  truncateToByteBudget,
} from '../../../src/tools/output/result-budget.ts';

describe('truncateToByteBudget', () => {
  const cases = [
    { title: 'empty text fits', text: '', budget: 1000, truncated: false },
    { title: 'short ASCII fits', text: 'hello', budget: 1000, truncated: false },
    { title: 'ASCII exactly at the budget fits', text: 'a'.repeat(1000), budget: 1000, truncated: false },
    { title: 'three-byte characters are not split', text: '€'.repeat(1000), budget: 1000, truncated: true },
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

describe('the cut output', () => {
  test('is the longest whole-character prefix that leaves room for the marker', () => {
    const text = 'a'.repeat(1001);
    const result = truncateToByteBudget(text, 1000);
    const [kept, marker] = result.text.split('\n');
    expect(CUT_MARKER_PATTERN.test(`${marker}`)).toBe(true);
    // The marker's allowance is computed with the budget as the kept count (4 digits), the real count
    // has 3, so the whole is exactly one byte under the budget.
    expect(Buffer.byteLength(result.text)).toBe(999);
    expect(kept).toBe('a'.repeat(Buffer.byteLength(kept ?? '')));
  });
});

describe('resultBudgetOf', () => {
  const cases: [string, { resultBudgetBytes?: number } | undefined, number | undefined, number][] = [
    ['an unknown tool gets the default', undefined, undefined, DEFAULT_TOOL_OUTPUT_BUDGET_BYTES],
    ['a tool without its own budget gets the default', {}, undefined, DEFAULT_TOOL_OUTPUT_BUDGET_BYTES],
    ["a tool's larger budget wins", { resultBudgetBytes: 600 * 1024 }, undefined, 600 * 1024],
    [
      "a tool's smaller budget does not lower the base",
      { resultBudgetBytes: 10 },
      undefined,
      DEFAULT_TOOL_OUTPUT_BUDGET_BYTES,
    ],
    ["the caller's base applies to a tool without its own", {}, 2000, 2000],
    ["a tool's budget over the caller's base wins", { resultBudgetBytes: 4000 }, 2000, 4000],
  ];
  test.each(cases)('%s', (_label, tool, base, expected) => {
    expect(resultBudgetOf(tool, base)).toBe(expected);
  });
});
