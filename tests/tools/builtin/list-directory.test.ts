import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createChat, expectFailure, expectOk } from '../../helpers/call-tool.ts';
import { describeFileWork, shareWithSandboxUser } from '../../helpers/chat-file-workers.ts';
import { makeTempDirectory, pathList } from '../../helpers/tool-context.ts';

describeFileWork('list_directory', (fileWork) => {
  const temp = makeTempDirectory('mango-list-');
  const wd = temp.path;
  beforeAll(async () => {
    writeFileSync(join(wd, 'b.txt'), 'b');
    writeFileSync(join(wd, 'A.txt'), 'a');
    mkdirSync(join(wd, 'sub'));
    symlinkSync(join(wd, 'b.txt'), join(wd, 'link'));
    Bun.spawnSync(['mkfifo', join(wd, 'pipe')]);
    await shareWithSandboxUser(wd, fileWork);
  });
  afterAll(() => temp.remove());

  test('lists entries sorted by name with their types', async () => {
    const result = expectOk(
      await createChat({ workingDirectory: wd, fileWork }).call('list_directory', { path: '.' }),
    );
    expect(result).toEqual({
      path: '.',
      entries: [
        { name: 'A.txt', type: 'file' },
        { name: 'b.txt', type: 'file' },
        { name: 'link', type: 'symlink' },
        { name: 'pipe', type: 'other' },
        { name: 'sub', type: 'directory' },
      ],
    });
  });

  test.each([
    ['a file (the argument is wrong, not missing)', 'b.txt', {}, 'validation_failed'],
    ['a path through a file', 'b.txt/inner', {}, 'not_found'],
    ['a missing directory', 'missing', {}, 'not_found'],
    ['a denied directory', 'sub', { deniedPaths: pathList('sub') }, 'permission_denied'],
    ['a path with a NUL byte', 'sub\0', {}, 'validation_failed'],
    ['a number', 42, {}, 'validation_failed'],
  ])('%s is refused', async (_name, path, parameters, classification) => {
    const outcome = await createChat({ workingDirectory: wd, parameters, fileWork }).call('list_directory', {
      path,
    });
    expect(expectFailure(outcome).classification).toBe(classification);
  });
});
