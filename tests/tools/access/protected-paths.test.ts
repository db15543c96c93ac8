import { afterAll, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  computeProtectedPaths,
  INSTALLATION_DIRECTORY,
  KERNEL_PROTECTED_PATHS,
  realOrAbsolute,
} from '../../../src/tools/access/protected-paths.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

const temp = makeTempDirectory('mango-protected-');
afterAll(() => temp.remove());

test('the installation directory is the checkout the server runs from', () => {
  expect(INSTALLATION_DIRECTORY).toBe(realOrAbsolute(resolve(import.meta.dir, '..', '..', '..')));
  expect(JSON.parse(readFileSync(join(INSTALLATION_DIRECTORY, 'package.json'), 'utf8')).name).toBe(
    'mango-tools',
  );
});

test('the protected set: kernel views, installation, data and workspaces directories, real and deduplicated', () => {
  const data = join(temp.path, 'data');
  mkdirSync(data);
  symlinkSync(data, join(temp.path, 'data-link'));
  expect(computeProtectedPaths({})).toEqual([...KERNEL_PROTECTED_PATHS, INSTALLATION_DIRECTORY]);
  expect(
    computeProtectedPaths({
      dataDirectory: join(temp.path, 'data-link'),
      workspacesDirectory: join(temp.path, 'not-yet', '..', 'workspaces'),
    }),
  ).toEqual(['/proc', '/sys', '/dev', INSTALLATION_DIRECTORY, data, join(temp.path, 'workspaces')]);
  expect(computeProtectedPaths({ dataDirectory: data, workspacesDirectory: data })).toEqual([
    '/proc',
    '/sys',
    '/dev',
    INSTALLATION_DIRECTORY,
    data,
  ]);
});
