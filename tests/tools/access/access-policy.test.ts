import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createAccessPolicy } from '../../../src/tools/access/access-policy.ts';
import {
  makeTempDirectory,
  makeToolContext,
  pathList,
  type ReachableFixture,
} from '../../helpers/tool-context.ts';

const temp = makeTempDirectory('mango-policy-');
const root = temp.path;
const home = join(root, 'workspaces', 'u1');
const readOnly = join(root, 'reference');
const server = join(root, 'data');
beforeAll(() => {
  for (const directory of [join(home, 'src'), join(home, 'private'), readOnly, server]) {
    mkdirSync(directory, { recursive: true });
  }
});
afterAll(() => temp.remove());

const binding: ReachableFixture = {
  workingDirectory: home,
  homeDirectory: home,
  workspaces: [
    { path: home, access: 'read-write', kind: 'personal' },
    { path: readOnly, access: 'read-only', kind: 'granted' },
  ],
  protectedPaths: [server, join(root, 'workspaces')],
};
const policyWith = (parameters: Record<string, unknown> = {}) =>
  createAccessPolicy(makeToolContext({ binding, parameters }));

describe('the order of the rules', () => {
  // [name, settings, location, need, the refusal's rule (undefined: allowed), what a walk decides]
  const cases: [string, Record<string, unknown>, string, 'read' | 'write', string | undefined, boolean][] = [
    ['a file in the personal workspace', {}, join(home, 'a.txt'), 'write', undefined, true],
    ['a read-only root, read', {}, join(readOnly, 'a.txt'), 'read', undefined, true],
    ['a read-only root, write', {}, join(readOnly, 'a.txt'), 'write', 'read-only', true],
    [
      'the protected set wins over an allow entry',
      { allowedPaths: pathList(server) },
      join(server, 'db'),
      'read',
      'server',
      false,
    ],
    ["another user's workspace", {}, join(root, 'workspaces', 'u2', 'x'), 'read', 'server', false],
    [
      'outside the set, though allowed by the settings',
      { allowedPaths: pathList(root) },
      join(root, 'elsewhere'),
      'read',
      'outside',
      false,
    ],
    [
      'read-only is decided before the settings',
      { deniedPaths: pathList(readOnly) },
      join(readOnly, 'a'),
      'write',
      'read-only',
      false,
    ],
    [
      'deniedPaths narrows the set',
      { deniedPaths: pathList('private') },
      join(home, 'private', 'k'),
      'read',
      'denied',
      false,
    ],
    [
      'allowedPaths narrows the set',
      { allowedPaths: pathList('src') },
      join(home, 'notes.md'),
      'read',
      'allowed',
      false,
    ],
    [
      'inside allowedPaths',
      { allowedPaths: pathList('src') },
      join(home, 'src', 'a.ts'),
      'write',
      undefined,
      true,
    ],
    [
      '~ in a setting is the personal workspace',
      { deniedPaths: pathList('~/src') },
      join(home, 'src', 'a.ts'),
      'read',
      'denied',
      false,
    ],
  ];
  const rule = (message: string | undefined): string | undefined => {
    if (message === undefined) return undefined;
    if (message.includes('belongs to the server')) return 'server';
    if (message.includes('lies outside what this chat can reach')) return 'outside';
    if (message.includes('may only read (read-only)')) return 'read-only';
    if (message.includes('(deniedPaths setting)')) return 'denied';
    if (message.includes('(allowedPaths setting')) return 'allowed';
    return message;
  };
  test.each(cases)('%s', async (_name, parameters, location, need, expected, admitted) => {
    const policy = await policyWith(parameters);
    expect(rule(policy.refusalFor(location, need, location)?.message)).toBe(expected);
    expect(policy.admits(location)).toBe(admitted);
  });
});

test('require throws permission_denied with the refusal, and walks ask admits synchronously', async () => {
  const policy = await policyWith();
  expect(() => policy.require(join(root, 'elsewhere'), 'read', 'elsewhere')).toThrow(
    `Access to "elsewhere" (resolved to ${join(root, 'elsewhere')}) is denied: it lies outside what this chat can reach, which is only ${home} (read-write), ${readOnly} (read-only).`,
  );
  expect(policy.admits(join(home, 'src'))).toBe(true);
});

describe('a whole tree admitted at once', () => {
  // [name, settings, directory, whether every descendant is admitted without a check of its own]
  const cases: [string, Record<string, unknown>, string, boolean][] = [
    [
      'the personal workspace (inside the protected workspaces directory, but hers), no path settings',
      {},
      home,
      true,
    ],
    ['a folder in it', {}, join(home, 'src'), true],
    ['a read-only root', {}, readOnly, true],
    ['the protected workspaces directory itself', {}, join(root, 'workspaces'), false],
    ['a directory holding a protected path', {}, root, false],
    ['outside the set', {}, join(root, 'elsewhere'), false],
    [
      'with a denied path anywhere',
      { deniedPaths: pathList(join(home, 'private')) },
      join(home, 'src'),
      false,
    ],
    ['with an allowed path covering it', { allowedPaths: pathList(home) }, join(home, 'src'), false],
  ];
  test.each(cases)('%s', async (_name, parameters, directory, whole) => {
    const policy = await policyWith(parameters);
    expect(policy.admitsEveryDescendant(directory)).toBe(whole);
    // Never more than the per-candidate check: what it admits whole, a descendant is admitted one by one.
    if (whole) expect(policy.admits(join(directory, 'deep', 'file.txt'))).toBe(true);
  });
});
