import { describe, expect, test } from 'bun:test';
import { readChatConfig } from '../../src/chat/chat-config.ts';

describe('readChatConfig', () => {
  test('defaults: 25 iterations, a 30 s turn lease, 4 turns per user', () => {
    expect(readChatConfig({})).toEqual({
      maxToolIterations: 25,
      turnLeaseMilliseconds: 30_000,
      userMaxTurns: 4,
    });
  });

  test('reads every variable', () => {
    expect(
      readChatConfig({
        MANGO_MAX_TOOL_ITERATIONS: '7',
        MANGO_TURN_LEASE_MS: '2500',
        MANGO_USER_MAX_TURNS: '12',
      }),
    ).toEqual({ maxToolIterations: 7, turnLeaseMilliseconds: 2500, userMaxTurns: 12 });
  });

  for (const value of ['0', '-1', '2.5', 'ten', '1001']) {
    test(`refuses MANGO_MAX_TOOL_ITERATIONS=${value}`, () => {
      expect(() => readChatConfig({ MANGO_MAX_TOOL_ITERATIONS: value })).toThrow(
        `MANGO_MAX_TOOL_ITERATIONS must be an integer from 1 to 1000, got "${value}".`,
      );
    });
  }

  for (const value of ['299', '600001', '1e4', '30s', '-1000']) {
    test(`refuses MANGO_TURN_LEASE_MS=${value}`, () => {
      expect(() => readChatConfig({ MANGO_TURN_LEASE_MS: value })).toThrow(
        `MANGO_TURN_LEASE_MS must be an integer from 300 to 600000 (milliseconds), got "${value}".`,
      );
    });
  }

  for (const value of ['0', '1001', '2.5', 'four', '-4']) {
    test(`refuses MANGO_USER_MAX_TURNS=${value}`, () => {
      expect(() => readChatConfig({ MANGO_USER_MAX_TURNS: value })).toThrow(
        `MANGO_USER_MAX_TURNS must be an integer from 1 to 1000, got "${value}".`,
      );
    });
  }
});
