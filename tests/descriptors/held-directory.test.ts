import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeldDirectory } from '../../src/descriptors/held-directory.ts';
import { O_CREAT, O_EXCL, O_RDONLY, O_WRONLY } from '../../src/descriptors/linux-file-calls.ts';

let base: string;
let outside: string;
let root: HeldDirectory;

beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'mango-held-'));
  outside = mkdtempSync(join(tmpdir(), 'mango-held-outside-'));
  writeFileSync(join(outside, 'secret.txt'), 'secret');
  mkdirSync(join(base, 'ws', 'inner'), { recursive: true });
  writeFileSync(join(base, 'ws', 'inner', 'file.txt'), 'inside');
  symlinkSync(outside, join(base, 'ws', 'out'));
  symlinkSync('inner', join(base, 'ws', 'in'));
  root = HeldDirectory.open(join(base, 'ws'));
});

afterEach(() => {
  root.close();
  rmSync(base, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

function codeOf(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return (error as { code?: unknown }).code;
  }
  return 'no error';
}

describe('HeldDirectory', () => {
  test('opening an absolute path refuses a link on any component', () => {
    expect(codeOf(() => HeldDirectory.open(join(base, 'ws', 'out')))).toBe('ELOOP');
    expect(codeOf(() => HeldDirectory.open(join(base, 'ws', 'in')))).toBe('ELOOP');
    expect(codeOf(() => HeldDirectory.open('relative/path'))).toBe('EINVAL');
  });

  test('relative opens refuse links, .. and absolute paths, and follow in-tree links only when asked', async () => {
    expect(codeOf(() => root.openDescriptor('out/secret.txt', O_RDONLY))).toBe('ELOOP');
    expect(codeOf(() => root.openDescriptor('out/secret.txt', O_RDONLY, 0, 'beneath'))).toBe('EXDEV');
    expect(codeOf(() => root.openDescriptor('../ws/inner/file.txt', O_RDONLY))).toBe('EXDEV');
    expect(codeOf(() => root.openDescriptor(join(outside, 'secret.txt'), O_RDONLY))).toBe('EXDEV');
    expect(codeOf(() => root.openDescriptor('in/file.txt', O_RDONLY))).toBe('ELOOP');
    const handle = await root.openHandle('in/file.txt', O_RDONLY, 0, 'beneath');
    expect(await handle.readFile('utf8')).toBe('inside');
    await handle.close();
  });

  test('statEntryIfPresent is statEntry, or undefined only for a missing entry', () => {
    expect(root.statEntryIfPresent('out')?.isSymbolicLink()).toBe(true);
    expect(root.statEntryIfPresent('missing')).toBeUndefined();
    // A link on the way is still refused, not taken for "missing".
    expect(codeOf(() => root.statEntryIfPresent('out/anything'))).toBe('ELOOP');
  });

  test('statEntry describes a link without following it', () => {
    expect(root.statEntry('out').isSymbolicLink()).toBe(true);
    expect(root.statEntry('inner').isDirectory()).toBe(true);
  });

  test('create, rename and remove act on one name in the held directory', async () => {
    const inner = root.openDirectory('inner');
    inner.createDirectory('made', 0o750);
    expect(lstatSync(join(base, 'ws', 'inner', 'made')).mode & 0o777).toBe(0o750);
    const handle = await inner.openHandle('new.txt', O_WRONLY | O_CREAT | O_EXCL, 0o600);
    await handle.writeFile('written');
    await handle.close();
    writeFileSync(join(base, 'ws', 'linked.txt'), 'already there');
    expect(codeOf(() => inner.rename('new.txt', root, 'linked.txt', { noReplace: true }))).toBe('EEXIST');
    inner.rename('new.txt', root, 'moved.txt');
    expect(readFileSync(join(base, 'ws', 'moved.txt'), 'utf8')).toBe('written');
    root.removeFile('moved.txt');
    root.removeFile('linked.txt');
    root.removeFile('out');
    expect(lstatSync(join(outside, 'secret.txt')).isFile()).toBe(true);
    inner.removeDirectory('made');
    expect(codeOf(() => inner.removeDirectory('../inner'))).toBe('EINVAL');
    expect(codeOf(() => inner.createDirectory('a/b'))).toBe('EINVAL');
    inner.close();
  });

  test('entries list the held object even after its name is swapped', async () => {
    const inner = root.openDirectory('inner');
    renameSync(join(base, 'ws', 'inner'), join(base, 'moved-away'));
    symlinkSync(outside, join(base, 'ws', 'inner'));
    expect((await inner.entries()).map((entry) => entry.name)).toEqual(['file.txt']);
    inner.close();
    expect(codeOf(() => inner.stat())).toBe('EBADF');
  });

  test('a real path opens and reads only without a link on any component; statPath is lstat-like', async () => {
    const file = join(base, 'ws', 'inner', 'file.txt');
    const handle = await HeldDirectory.openPathHandle(file, O_RDONLY);
    expect(await handle.readFile('utf8')).toBe('inside');
    await handle.close();
    expect(HeldDirectory.statPath(join(base, 'ws', 'inner')).isDirectory()).toBe(true);
    expect(HeldDirectory.statPath(join(base, 'ws', 'out')).isSymbolicLink()).toBe(true);
    expect(codeOf(() => HeldDirectory.statPath(join(base, 'ws', 'in', 'file.txt')))).toBe('ELOOP');
    expect(codeOf(() => HeldDirectory.openPath(join(base, 'ws', 'in', 'file.txt'), O_RDONLY))).toBe('ELOOP');
    expect(codeOf(() => HeldDirectory.openPath(join(base, 'ws', 'out', 'secret.txt'), O_RDONLY))).toBe(
      'ELOOP',
    );
    expect(codeOf(() => HeldDirectory.openPath('ws/inner/file.txt', O_RDONLY))).toBe('EINVAL');
  });

  test('entriesSync lists through the descriptor and linkTarget reads a link without following it', () => {
    expect(
      root
        .entriesSync()
        .map((entry) => entry.name)
        .sort(),
    ).toEqual(['in', 'inner', 'out']);
    expect(root.linkTarget('out')).toBe(outside);
    expect(root.linkTarget('in')).toBe('inner');
    expect(codeOf(() => root.linkTarget('inner/file.txt'))).toBe('EINVAL');
  });
});

describe('HeldDirectory, asynchronous creation and rename', () => {
  test('createFile makes a new file and refuses any entry already at the name, a link included', async () => {
    const handle = await root.createFile('made.txt', 0o600);
    await handle.writeFile('made');
    await handle.close();
    expect(readFileSync(join(base, 'ws', 'made.txt'), 'utf8')).toBe('made');
    for (const name of ['made.txt', 'out', 'in']) {
      expect(
        await root.createFile(name).then(
          () => 'created',
          (error: { code?: string }) => error.code,
        ),
      ).toBe('EEXIST');
    }
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
  });

  test('renameAsync acts on names of the held object even after its path was swapped', async () => {
    const inner = root.openDirectory('inner');
    renameSync(join(base, 'ws', 'inner'), join(base, 'moved-away'));
    symlinkSync(outside, join(base, 'ws', 'inner'));
    await inner.renameAsync('file.txt', inner, 'renamed.txt');
    expect(readFileSync(join(base, 'moved-away', 'renamed.txt'), 'utf8')).toBe('inside');
    writeFileSync(join(base, 'moved-away', 'other.txt'), 'other');
    expect(
      await inner.renameAsync('other.txt', inner, 'renamed.txt', { noReplace: true }).then(
        () => 'renamed',
        (error: { code?: string }) => error.code,
      ),
    ).toBe('EEXIST');
    await inner.renameAsync('other.txt', inner, 'fresh.txt', { noReplace: true });
    expect(lstatSync(join(base, 'moved-away', 'other.txt'), { throwIfNoEntry: false })).toBeUndefined();
    expect(readFileSync(join(base, 'moved-away', 'fresh.txt'), 'utf8')).toBe('other');
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('secret');
    inner.close();
  });
});
