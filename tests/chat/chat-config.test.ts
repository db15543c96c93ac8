import { describe, expect, test } from 'bun:test';
import { readChatConfig } from '../../src/chat/chat-config.ts';

describe('readChatConfig', () => {
  test('defaults: 25 iterations', () => {
    expect(readChatConfig({})).toEqual({ maxToolIterations: 25 });
  });

  test('reads MANGO_MAX_TOOL_ITERATIONS', () => {
    expect(readChatConfig({ MANGO_MAX_TOOL_ITERATIONS: '7' })).toEqual({ maxToolIterations: 7 });
  });

  for (const value of ['0', '-1', '2.5', 'ten', '1001']) {
    test(`refuses MANGO_MAX_TOOL_ITERATIONS=${value}`, () => {
      expect(() => readChatConfig({ MANGO_MAX_TOOL_ITERATIONS: value })).toThrow(
        `MANGO_MAX_TOOL_ITERATIONS must be an integer from 1 to 1000; got "${value}".`,
      );
    });
  }
});
