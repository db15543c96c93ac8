import { describe, expect, test } from 'bun:test';
import { diffSizeText, readFileEditArguments } from '../../web/edit-diff-view.ts';
import {
  directoryCaption,
  fileEditText,
  imageResultLines,
  pathListCaption,
  readDirectoryListing,
  readFileEditResult,
  readPathList,
} from '../../web/tool-result-listings.ts';
import { findImages, formatArguments, shellFacts } from '../../web/tool-result-view.ts';

describe('findImages', () => {
  test.each([
    [
      'generate_image result: same-origin URLs with the prompt as alt text',
      { prompt: 'a mango', images: [{ url: '/api/images/i1', mimeType: 'image/png' }] },
      [{ source: '/api/images/i1', alt: 'a mango' }],
    ],
    [
      'an image object carrying its own prompt',
      { images: [{ url: '/api/images/i2', prompt: 'a mango tree' }] },
      [{ source: '/api/images/i2', alt: 'a mango tree' }],
    ],
    [
      'base64 data becomes a data URL of its MIME type',
      { base64: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk', mimeType: 'image/png' },
      [
        {
          source: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk',
          alt: 'Generated image',
        },
      ],
    ],
    ['another host is never requested', { images: [{ url: 'https://cdn.example.com/a.png' }] }, []],
    ['a protocol-relative URL is another host too', { url: '//cdn.example.com/a.png' }, []],
    // The loader sends the bearer token: a URL the browser resolves to another host would leak it.
    ['a backslash path is another host for the URL parser', { url: '/\\evil.example/a.png' }, []],
    ['a tab inside the slashes is dropped by the URL parser', { url: '/\t/evil.example/a.png' }, []],
    ['a newline inside the slashes too', { url: '/\n/evil.example/a.png' }, []],
    ['plain results have no images', { stdout: 'hi', exitCode: 0 }, []],
  ])('%s', (_name, result, expected) => {
    expect(findImages(result)).toEqual(expected);
  });
});

describe('formatArguments', () => {
  test.each([
    ['', '{}'],
    ['{"path":"a.txt"}', '{\n  "path": "a.txt"\n}'],
    ['{"path":', '{"path":'],
  ])('%j → %j', (input, expected) => {
    expect(formatArguments(input)).toBe(expected);
  });
});

describe('shellFacts', () => {
  test.each([
    ['a plain exit', { exitCode: 0, termination: { kind: 'exited' } }, ['exit code 0']],
    [
      'a death by signal',
      { exitCode: null, termination: { kind: 'signalled', signal: 'SIGSEGV' } },
      ['killed by SIGSEGV'],
    ],
    [
      "a process killed when the user's memory share ran out",
      { exitCode: 137, termination: { kind: 'memory', limitBytes: 2 * 1024 ** 3 }, truncated: true },
      ['exit code 137', "killed: the user's memory share (2 GiB) ran out", 'output truncated'],
    ],
    ['a timeout', { exitCode: null, termination: { kind: 'timed_out', signal: 'SIGKILL' } }, ['timed out']],
    ['a result without a termination', { exitCode: 1 }, ['exit code 1']],
  ])('%s', (_name, result, expected) => {
    expect(shellFacts(result)).toEqual(expected);
  });
});

describe('the structured views read their shapes and refuse what does not fit', () => {
  test('a directory listing: entries with a known type, captioned by kind', () => {
    const listing = readDirectoryListing({
      path: 'src',
      entries: [
        { name: 'app', type: 'directory' },
        { name: 'main.ts', type: 'file' },
        { name: 'latest', type: 'symlink' },
      ],
      notice: '1 entry left out',
    });
    expect(listing).toEqual({
      path: 'src',
      entries: [
        { name: 'app', type: 'directory' },
        { name: 'main.ts', type: 'file' },
        { name: 'latest', type: 'symlink' },
      ],
      notice: '1 entry left out',
    });
    expect(directoryCaption(listing!)).toBe('src — 3 entries: 1 folder, 1 file, 1 link');
    expect(directoryCaption({ path: 'empty', entries: [] })).toBe('empty — empty');
  });

  test.each([
    ['no entries list', { path: 'src' }],
    ['an entry of an unknown type', { path: 'src', entries: [{ name: 'a', type: 'socket' }] }],
    ['an entry without a name', { path: 'src', entries: [{ type: 'file' }] }],
    ['not an object', 'src/'],
  ])('not a listing: %s', (_name, result) => {
    expect(readDirectoryListing(result)).toBeUndefined();
  });

  test('a path list, captioned with its pattern, and said so when cut', () => {
    const list = readPathList({ pattern: '*.ts', cwd: '.', matches: ['a.ts', 'b.ts'], truncated: true });
    expect(list).toEqual({ pattern: '*.ts', cwd: '.', matches: ['a.ts', 'b.ts'], truncated: true });
    expect(pathListCaption(list!)).toBe('2 paths match *.ts in . (cut: the first 2 shown)');
    expect(pathListCaption({ pattern: 'x', cwd: 'src', matches: ['x'], truncated: false })).toBe(
      '1 path matches x in src',
    );
    expect(pathListCaption({ pattern: 'x', cwd: 'src', matches: [], truncated: false })).toBe(
      'No path matches x in src',
    );
    expect(
      readPathList({ pattern: '*.ts', cwd: '.', matches: ['a.ts', 3], truncated: false }),
    ).toBeUndefined();
  });

  test('an edit result, and an image result with its failures', () => {
    const edit = readFileEditResult({ path: 'a.md', replacements: 2, sha256: 'f00', firstChangedLine: 7 });
    expect(edit).toEqual({ path: 'a.md', replacements: 2, sha256: 'f00', firstChangedLine: 7 });
    expect(fileEditText(edit!)).toBe('Saved: 2 replacements, from line 7.');
    expect(readFileEditResult({ path: 'a.md', replacements: '2' })).toBeUndefined();
    expect(
      imageResultLines({
        count: 2,
        model: 'gpt-image-1',
        images: [{ url: '/api/images/i1' }],
        errors: [{ index: 1, message: 'content policy' }],
      }),
    ).toEqual(['1 of 2 images made with gpt-image-1.', 'Image 2 failed: content policy']);
    expect(imageResultLines({ stdout: '' })).toBeUndefined();
  });

  test('the edit arguments the diff reads', () => {
    expect(readFileEditArguments({ path: 'a', oldString: 'x', newString: 'y', replaceAll: true })).toEqual({
      path: 'a',
      oldString: 'x',
      newString: 'y',
      replaceAll: true,
    });
    expect(readFileEditArguments({ path: 'a', oldString: 'x' })).toBeUndefined();
    expect(diffSizeText({ path: 'a', oldString: 'one\ntwo\n', newString: 'one\n2\nthree\n' })).toBe(
      '1 line removed, 2 added',
    );
  });
});
