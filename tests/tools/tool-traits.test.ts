import { describe, expect, test } from 'bun:test';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { buildShellTool } from '../../src/tools/builtin/build-shell-tool.ts';
import { defaultToolRegistry } from '../../src/tools/registry.ts';
import { SHELL_KINDS } from '../../src/tools/shell/shell-interpreter.ts';
import { CAUTIOUS_TRAITS, type ToolTraits, traitsOf } from '../../src/tools/tool-traits.ts';
import { builtinToolsForSnapshot } from './advertised-schemas-capture.ts';

const shell: ToolTraits = {
  readOnly: false,
  destructive: true,
  idempotent: false,
  openWorld: true,
  confirmBeforeEnable: true,
  resultView: 'command_output',
  approvalDefault: 'always',
};

const TRAIT_KEYS = Object.keys(CAUTIOUS_TRAITS).sort();

/**
 * Every builtin, read from the registry (the shells of all kinds): what each states is recorded in the
 * advertised-schema snapshot and the table of docs/tools.md, both generated from these declarations.
 */
const builtins = builtinToolsForSnapshot().map((tool) => [tool.definition.name, tool] as const);

describe('builtin tool traits', () => {
  test('the builtins read here are the registered ones', () => {
    const registered = defaultToolRegistry.list().map((tool) => tool.definition.name);
    expect(registered).toContain('read_file');
    const read = new Set(builtins.map(([name]) => name));
    expect(registered.filter((name) => !read.has(name))).toEqual([]);
  });

  test.each(builtins)('%s declares every trait itself, consistently', (name, tool) => {
    expect({ name, declared: tool.traits !== undefined }).toEqual({ name, declared: true });
    const traits = traitsOf(tool);
    expect(Object.keys(traits).sort()).toEqual(TRAIT_KEYS);
    // Read-only means it changes nothing: then it destroys nothing and a repeat has no further effect.
    if (traits.readOnly)
      expect({ name, destructive: traits.destructive, idempotent: traits.idempotent }).toEqual({
        name,
        destructive: false,
        idempotent: true,
      });
    // A tool the user must confirm before enabling is one whose calls are asked about by default.
    if (traits.confirmBeforeEnable)
      expect({ name, approvalDefault: traits.approvalDefault }).toEqual({ name, approvalDefault: 'always' });
  });

  test('the shell builder states the shell traits for every kind', () => {
    for (const kind of SHELL_KINDS) expect(buildShellTool(kind).traits).toEqual(shell);
  });
});

describe('traitsOf', () => {
  test('a tool without traits gets the cautious ones: not read-only, asks before enabling and before each call, JSON view', () => {
    expect(traitsOf({})).toEqual({
      readOnly: false,
      destructive: true,
      idempotent: false,
      openWorld: true,
      confirmBeforeEnable: true,
      resultView: 'json',
      approvalDefault: 'always',
    });
    expect(traitsOf(undefined)).toBe(CAUTIOUS_TRAITS);
  });

  test('declared traits are returned as declared', () => {
    expect(traitsOf({ traits: shell })).toBe(shell);
  });
});
