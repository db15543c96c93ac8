import { describe, expect, test } from 'bun:test';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { buildShellTool } from '../../src/tools/builtin/build-shell-tool.ts';
import { defaultToolRegistry } from '../../src/tools/registry.ts';
import { findShellInterpreter } from '../../src/tools/shell/shell-interpreter.ts';
import { CAUTIOUS_TRAITS, type ToolTraits, traitsOf } from '../../src/tools/tool-traits.ts';

const readOnly = (resultView: ToolTraits['resultView']): ToolTraits => ({
  readOnly: true,
  destructive: false,
  idempotent: true,
  openWorld: false,
  confirmBeforeEnable: false,
  resultView,
  approvalDefault: 'never',
});
const shell: ToolTraits = {
  readOnly: false,
  destructive: true,
  idempotent: false,
  openWorld: true,
  confirmBeforeEnable: true,
  resultView: 'command_output',
  approvalDefault: 'always',
};
const localWrite = (idempotent: boolean): ToolTraits => ({
  readOnly: false,
  destructive: true,
  idempotent,
  openWorld: false,
  confirmBeforeEnable: false,
  resultView: 'json',
  approvalDefault: 'always',
});

/** Every builtin and the traits it must declare: a new builtin without a row fails the first test. */
const EXPECTED: Record<string, ToolTraits> = {
  get_current_datetime: readOnly('json'),
  generate_image: {
    readOnly: false,
    destructive: false,
    idempotent: false,
    openWorld: true,
    confirmBeforeEnable: false,
    resultView: 'images',
    approvalDefault: 'always',
  },
  bash: shell,
  zsh: shell,
  powershell: shell,
  read_file: readOnly('file_content'),
  write_file: localWrite(true),
  edit_file: localWrite(false),
  list_directory: readOnly('json'),
  glob: readOnly('json'),
  grep: readOnly('search_matches'),
};

/** PowerShell registers only where an interpreter is installed. */
const powershellInstalled = findShellInterpreter('powershell') !== undefined;
const registeredHere = Object.keys(EXPECTED).filter((name) => name !== 'powershell' || powershellInstalled);

describe('builtin tool traits', () => {
  test('the registry holds exactly the builtins of the table that run here', () => {
    expect(
      defaultToolRegistry
        .list()
        .map((tool) => tool.definition.name)
        .sort(),
    ).toEqual(registeredHere.sort());
  });

  test.each(Object.entries(EXPECTED))('%s declares its traits', (name, expected) => {
    const tool =
      name === 'powershell' && !powershellInstalled
        ? buildShellTool('powershell', {
            // Never run: only the declaration is read.
            interpreter: {
              kind: 'powershell',
              executable: 'pwsh',
              argumentsFor: (command) => ['pwsh', command],
            },
          })
        : defaultToolRegistry.get(name);
    expect(tool?.traits).toEqual(expected);
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
