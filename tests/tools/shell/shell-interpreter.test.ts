import { describe, expect, test } from 'bun:test';
import { findShellInterpreter, type ShellKind } from '../../../src/tools/shell/shell-interpreter.ts';

function lookup(available: string[], platform: NodeJS.Platform) {
  return {
    which: (name: string) => (available.includes(name) ? `/found/${name}` : null),
    platform,
  };
}

describe('findShellInterpreter', () => {
  const cases: [ShellKind, string[], NodeJS.Platform, string | undefined][] = [
    ['bash', ['bash'], 'linux', '/found/bash'],
    ['bash', [], 'linux', undefined],
    ['zsh', ['zsh'], 'darwin', '/found/zsh'],
    ['zsh', ['bash'], 'linux', undefined],
    ['powershell', ['pwsh', 'powershell'], 'linux', undefined],
    ['powershell', ['pwsh', 'powershell'], 'win32', '/found/pwsh'],
    ['powershell', ['powershell'], 'win32', '/found/powershell'],
    ['powershell', [], 'win32', undefined],
  ];
  test.each(cases)('%s with %p on %s → %p', (kind, available, platform, expected) => {
    expect(findShellInterpreter(kind, lookup(available, platform))?.executable).toBe(expected);
  });

  test('argument vectors', () => {
    const everything = lookup(['bash', 'zsh', 'pwsh'], 'win32');
    expect(findShellInterpreter('bash', everything)?.argumentsFor('ls')).toEqual(['/found/bash', '-c', 'ls']);
    expect(findShellInterpreter('zsh', everything)?.argumentsFor('ls')).toEqual(['/found/zsh', '-c', 'ls']);
    expect(findShellInterpreter('powershell', everything)?.argumentsFor('ls')).toEqual([
      '/found/pwsh',
      '-NoProfile',
      '-NonInteractive',
      '-Command',
      'ls',
    ]);
  });
});
