import { describe, expect, test } from 'bun:test';
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
