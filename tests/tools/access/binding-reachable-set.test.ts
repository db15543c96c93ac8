import { afterAll, expect, test } from 'bun:test';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { computeBindingReachableSet } from '../../../src/tools/access/binding-reachable-set.ts';
import { INSTALLATION_DIRECTORY } from '../../../src/tools/access/protected-paths.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

const temp = makeTempDirectory('mango-binding-');
const project = join(temp.path, 'project');
const data = join(temp.path, 'data');
mkdirSync(project);
mkdirSync(data);
symlinkSync(project, join(temp.path, 'project-link'));
afterAll(() => temp.remove());

const protectedPaths = ['/proc', '/sys', '/dev', INSTALLATION_DIRECTORY, data];

test('a confined binding reaches only its (real) working directory, read-write', () => {
  expect(
    computeBindingReachableSet({
      workingDirectory: join(temp.path, 'project-link'),
      confined: true,
      fallbackWorkingDirectory: '/unused',
      homeDirectory: temp.path,
      dataDirectory: data,
    }),
  ).toEqual({
    workingDirectory: project,
    homeDirectory: temp.path,
    roots: [{ path: project, access: 'read-write' }],
    protectedPaths,
  });
});

test('an unconfined binding reaches the filesystem minus the protected set; no directory takes the fallback', () => {
  expect(
    computeBindingReachableSet({
      confined: false,
      fallbackWorkingDirectory: project,
      homeDirectory: temp.path,
      dataDirectory: data,
    }),
  ).toEqual({
    workingDirectory: project,
    homeDirectory: temp.path,
    roots: [{ path: '/', access: 'read-write' }],
    protectedPaths,
  });
});

test('a confined binding without a directory fails closed', () => {
  expect(() =>
    computeBindingReachableSet({ confined: true, fallbackWorkingDirectory: project, homeDirectory: project }),
  ).toThrow('A confined call needs a working directory to be confined to; no tool may run.');
});
