import { describe, expect, test } from 'bun:test';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { makeTool } from '../helpers/fake-tools.ts';

describe('ToolRegistry', () => {
  test('registration is idempotent for the same tool and lists in registration order', () => {
    const registry = new ToolRegistry();
    const first = makeTool({ name: 'first' });
    const second = makeTool({ name: 'second' });
    registry.register(first);
    registry.register(second);
    registry.register(first);
    expect(registry.list()).toEqual([first, second]);
    expect(registry.get('second')).toBe(second);
    expect(registry.get('third')).toBeUndefined();
  });

  test('a different tool under a taken name is an error', () => {
    const registry = new ToolRegistry();
    registry.register(makeTool({ name: 'dup' }));
    expect(() => registry.register(makeTool({ name: 'dup' }))).toThrow(
      'A different tool is already registered under the name "dup".',
    );
  });

  test('names a provider cannot carry are refused', () => {
    expect(() => new ToolRegistry().register(makeTool({ name: 'has space' }))).toThrow(
      'Tool name "has space" must be 1–64 letters, digits, underscores or dashes.',
    );
  });
});
