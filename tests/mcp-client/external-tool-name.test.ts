import { describe, expect, test } from 'bun:test';
import { externalToolName, nameExternalTools } from '../../src/mcp-client/external-tool-name.ts';

describe('externalToolName', () => {
  test.each([
    ['memory', 'create_entities', 'mcp__memory__create_entities'],
    ['everything', 'get-sum', 'mcp__everything__get-sum'],
    ['a', 'b', 'mcp__a__b'],
    // Replaced characters always bring the hash, so "a.b" and "a_b" stay apart.
    ['srv', 'a.b', 'mcp__srv__a_b_df0974cd'],
    ['srv', 'a_b', 'mcp__srv__a_b'],
    ['srv', 'Odd.Name With Spaces', 'mcp__srv__Odd_Name_With_Spaces_93eae116'],
    ['srv', 'ünïcødé', 'mcp__srv___n_c_d__1be5ea9a'],
    // Exactly 64 characters fit unchanged; one more is cut and hashed to 64.
    ['s', 'x'.repeat(56), `mcp__s__${'x'.repeat(56)}`],
    ['s', 'x'.repeat(57), `mcp__s__${'x'.repeat(47)}_065b956f`],
  ])('%s / %s → %s', (server, tool, expected) => {
    const name = externalToolName(server, tool);
    expect(name).toBe(expected);
    expect(name.length).toBeLessThanOrEqual(64);
    expect(name).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  test('two long names that share their first 64 characters get different names', () => {
    const long = 'very_long_tool_name_'.repeat(4);
    const first = externalToolName('server', `${long}alpha`);
    const second = externalToolName('server', `${long}beta`);
    expect(first).not.toBe(second);
    expect(first.slice(0, 55)).toBe(second.slice(0, 55));
    expect(first).toHaveLength(64);
    expect(second).toHaveLength(64);
  });

  test('the same names give the same result every time (settings are keyed by it)', () => {
    expect(externalToolName('srv', 'a.b')).toBe(externalToolName('srv', 'a.b'));
    expect(externalToolName('srv', 'a.b')).not.toBe(externalToolName('other', 'a.b'));
  });
});

describe('nameExternalTools', () => {
  test('a tool literally named like another’s hashed form is left out, whatever the listing order', () => {
    const hashed = externalToolName('srv', 'a.b').slice('mcp__srv__'.length);
    for (const order of [
      ['a.b', hashed],
      [hashed, 'a.b'],
    ]) {
      const naming = nameExternalTools('srv', order);
      expect([...naming.names.entries()]).toEqual([['a.b', 'mcp__srv__a_b_df0974cd']]);
      expect(naming.collisions).toEqual([{ tool: hashed, name: 'mcp__srv__a_b_df0974cd', keptBy: 'a.b' }]);
    }
  });

  test('duplicates in a listing count once', () => {
    expect([...nameExternalTools('srv', ['x', 'x']).names.keys()]).toEqual(['x']);
  });
});
