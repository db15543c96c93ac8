import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { resolveAndValidatePath } from '../../../src/tools/access/resolve-and-validate-path.ts';
import { ToolError } from '../../../src/tools/errors.ts';
import {
  PATH_ACCESS_DEFAULT_PARAMETERS,
  PATH_ACCESS_PARAMETER_DESCRIPTORS,
} from '../../../src/tools/fs/path-access-settings.ts';
import type { ToolContext } from '../../../src/tools/types.ts';
import { makeTempDirectory, makeToolContext, pathList } from '../../helpers/tool-context.ts';

const temp = makeTempDirectory('mango-paths-');
const root = temp.path;
const wd = join(root, 'wd');

beforeAll(() => {
  mkdirSync(join(wd, 'sub'), { recursive: true });
  mkdirSync(join(root, 'outside'));
  mkdirSync(join(root, 'wd-evil'));
  writeFileSync(join(wd, 'inside.txt'), 'in\n');
  writeFileSync(join(wd, 'sub', 'file.txt'), 'sub\n');
  writeFileSync(join(root, 'outside', 'secret.txt'), 'secret\n');
  writeFileSync(join(root, 'wd-evil', 'x.txt'), 'evil\n');
  symlinkSync(join(root, 'outside'), join(wd, 'link-out'));
  symlinkSync(join(wd, 'sub'), join(wd, 'link-in'));
  symlinkSync(join(root, 'outside', 'new.txt'), join(wd, 'dangling-out'));
  symlinkSync(join(wd, 'sub', 'new.txt'), join(wd, 'dangling-in'));
  symlinkSync(join(wd, 'loop-a'), join(wd, 'loop-b'));
  symlinkSync(join(wd, 'loop-b'), join(wd, 'loop-a'));
});
afterAll(() => temp.remove());

async function outcome(input: string, context: ToolContext): Promise<string> {
  try {
    const resolved = await resolveAndValidatePath(input, context);
    return `ok ${resolved.real}${resolved.exists ? '' : ' (new)'}`;
  } catch (error) {
    if (ToolError.isInstance(error)) return error.classification;
    throw error;
  }
}

describe('restricted containment', () => {
  const cases: [string, string, () => string][] = [
    ['relative file', 'inside.txt', () => `ok ${wd}/inside.txt`],
    ['nested file', 'sub/file.txt', () => `ok ${wd}/sub/file.txt`],
    ['.. that stays inside', 'sub/../inside.txt', () => `ok ${wd}/inside.txt`],
    ['.. escape', '../outside/secret.txt', () => 'permission_denied'],
    ['deep .. escape', 'sub/../../outside/secret.txt', () => 'permission_denied'],
    ['absolute outside', join(root, 'outside', 'secret.txt'), () => 'permission_denied'],
    ['absolute inside', join(wd, 'inside.txt'), () => `ok ${wd}/inside.txt`],
    ['symlink escape', 'link-out/secret.txt', () => 'permission_denied'],
    ['symlink to the outside directory itself', 'link-out', () => 'permission_denied'],
    ['symlink inside', 'link-in/file.txt', () => `ok ${wd}/sub/file.txt`],
    ['dangling symlink pointing outside', 'dangling-out', () => 'permission_denied'],
    ['dangling symlink pointing inside', 'dangling-in', () => `ok ${wd}/sub/new.txt (new)`],
    ['prefix trick', '../wd-evil/x.txt', () => 'permission_denied'],
    ['not yet existing tail', 'sub/new/dir/f.txt', () => `ok ${wd}/sub/new/dir/f.txt (new)`],
    ['new file under symlink escape', 'link-out/new/f.txt', () => 'permission_denied'],
    ['the working directory itself', '.', () => `ok ${wd}`],
    ['root', '/', () => 'permission_denied'],
    ['symlink loop', 'loop-a', () => 'validation_failed'],
  ];
  const context = makeToolContext({ binding: { workingDirectory: wd, confined: true } });
  test.each(cases)('%s: %s', async (_name, input, expected) => {
    expect(await outcome(input, context)).toBe(expected());
  });
});

describe('argument errors', () => {
  const context = makeToolContext({ binding: { workingDirectory: wd } });
  test.each([
    ['empty', ''],
    ['NUL byte', 'inside.txt\0.png'],
    ['NUL byte alone', '\0'],
  ])('%s is validation_failed', async (_name, input) => {
    expect(await outcome(input, context)).toBe('validation_failed');
  });
  test('the message names the argument', async () => {
    await expect(resolveAndValidatePath('a\0b', context, 'cwd')).rejects.toThrow(/"cwd".*NUL byte/);
  });
});

describe('allowedPaths and deniedPaths', () => {
  const cases: [string, Record<string, unknown>, string, string][] = [
    ['empty allow list allows everything', {}, '../outside/secret.txt', 'ok'],
    ['inside an allowed directory', { allowedPaths: pathList('sub') }, 'sub/file.txt', 'ok'],
    ['outside the allowed directories', { allowedPaths: pathList('sub') }, 'inside.txt', 'permission_denied'],
    ['allowed entry equal to the file', { allowedPaths: pathList('inside.txt') }, 'inside.txt', 'ok'],
    ['prefix trick against allow', { allowedPaths: pathList(wd) }, '../wd-evil/x.txt', 'permission_denied'],
    [
      'symlink escape from allowed',
      { allowedPaths: pathList(wd) },
      'link-out/secret.txt',
      'permission_denied',
    ],
    ['disabled allow entry is ignored', { allowedPaths: pathList(['sub', false]) }, 'inside.txt', 'ok'],
    [
      'deny wins over allow',
      { allowedPaths: pathList(wd), deniedPaths: pathList('sub') },
      'sub/file.txt',
      'permission_denied',
    ],
    [
      'deny reached through a symlink',
      { deniedPaths: pathList('sub') },
      'link-in/file.txt',
      'permission_denied',
    ],
    [
      'deny of a symlink target',
      { deniedPaths: pathList(join(root, 'outside')) },
      'link-out/secret.txt',
      'permission_denied',
    ],
    ['disabled deny entry is ignored', { deniedPaths: pathList(['sub', false]) }, 'sub/file.txt', 'ok'],
    ['deny of a sibling does not match by prefix', { deniedPaths: pathList('su') }, 'sub/file.txt', 'ok'],
    [
      'allow entry written with ~',
      { allowedPaths: pathList('~') },
      join(root, 'outside'),
      root.startsWith(homedir()) ? 'ok' : 'permission_denied',
    ],
  ];
  test.each(cases)('%s', async (_name, parameters, input, expected) => {
    const result = await outcome(input, makeToolContext({ binding: { workingDirectory: wd }, parameters }));
    expect(result.startsWith('ok') ? 'ok' : result).toBe(expected);
  });

  test('refusals name the path and the rule', async () => {
    const denied = makeToolContext({
      binding: { workingDirectory: wd },
      parameters: { deniedPaths: pathList('sub') },
    });
    await expect(resolveAndValidatePath('sub/file.txt', denied)).rejects.toThrow(
      `Access to "sub/file.txt" (resolved to ${wd}/sub/file.txt) is denied: it is inside the denied path "sub" (deniedPaths setting).`,
    );
    const allowed = makeToolContext({
      binding: { workingDirectory: wd },
      parameters: { allowedPaths: pathList('sub') },
    });
    await expect(resolveAndValidatePath(join(wd, 'inside.txt'), allowed)).rejects.toThrow(
      `Access to "${wd}/inside.txt" is denied: it is outside the allowed paths (allowedPaths setting: "sub").`,
    );
    const confined = makeToolContext({ binding: { workingDirectory: wd, confined: true } });
    await expect(resolveAndValidatePath('link-out/secret.txt', confined)).rejects.toThrow(
      `Access to "link-out/secret.txt" (resolved to ${root}/outside/secret.txt) is denied: it lies outside what this chat can reach, which is only ${wd} (read-write).`,
    );
  });
});

describe('resolution', () => {
  test("~ and ~/ expand to the reachable set's home directory, not the server user's; ~user is a relative name", async () => {
    const home = join(wd, 'sub');
    const context = makeToolContext({ binding: { workingDirectory: wd, homeDirectory: home } });
    expect((await resolveAndValidatePath('~', context)).absolute).toBe(home);
    expect((await resolveAndValidatePath('~/x/y', context)).absolute).toBe(join(home, 'x/y'));
    expect((await resolveAndValidatePath('~user/x', context)).absolute).toBe(join(wd, '~user/x'));
    const confined = makeToolContext({
      binding: { workingDirectory: wd, confined: true, homeDirectory: home },
    });
    expect((await resolveAndValidatePath('~/file.txt', confined)).real).toBe(join(home, 'file.txt'));
  });

  test('input, absolute and real are all reported', async () => {
    const resolved = await resolveAndValidatePath(
      'link-in/file.txt',
      makeToolContext({ binding: { workingDirectory: wd } }),
    );
    expect(resolved).toEqual({
      input: 'link-in/file.txt',
      absolute: join(wd, 'link-in/file.txt'),
      real: join(wd, 'sub/file.txt'),
      exists: true,
    });
  });

  test('relative paths resolve against the reachable set, never the server process directory', async () => {
    const context = makeToolContext({ binding: { workingDirectory: join(wd, 'sub') } });
    expect((await resolveAndValidatePath('file.txt', context)).real).toBe(join(wd, 'sub', 'file.txt'));
    const fromServer = makeToolContext({ binding: { workingDirectory: process.cwd() } });
    expect(await outcome('package.json', fromServer)).toBe('permission_denied');
  });

  test('shared settings descriptors and defaults', () => {
    expect(PATH_ACCESS_PARAMETER_DESCRIPTORS.map((descriptor) => [descriptor.name, descriptor.type])).toEqual(
      [
        ['allowedPaths', 'path_list'],
        ['deniedPaths', 'path_list'],
      ],
    );
    expect(PATH_ACCESS_DEFAULT_PARAMETERS).toEqual({ allowedPaths: [], deniedPaths: [] });
  });
});
