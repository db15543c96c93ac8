/**
 * The README stays the front door (at most 8 KB) and the manual stays navigable: every relative link in
 * the README, CONTRIBUTING.md and docs/ names a file (and heading) that exists, and no page cites what a
 * reader of the repository cannot open. The checker itself is tested on planted files, so these checks
 * can fail.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findPrograms } from '../../src/sandbox/sandbox-arguments.ts';
import {
  findBrokenLinks,
  findOutsideCitations,
  headingAnchor,
  listRepositoryMarkdown,
} from './markdown-check.ts';

const ROOT = resolve(import.meta.dir, '..', '..');
const README_LIMIT_BYTES = 8 * 1024;

/** Records written before the rule against outside citations; they are kept as written. */
const isEarlierRecord = (file: string) => file.startsWith('docs/decisions/2026-11-30-');

describe('the repository documentation', () => {
  const files = listRepositoryMarkdown(ROOT);

  test('README.md is at most 8 KB', () => {
    expect(statSync(join(ROOT, 'README.md')).size).toBeLessThanOrEqual(README_LIMIT_BYTES);
  });

  test('the pages the README promises exist', () => {
    for (const page of [
      'CONTRIBUTING.md',
      'docs/operating.md',
      'docs/http-api.md',
      'docs/tools.md',
      'docs/providers.md',
      'docs/mcp.md',
      'docs/web.md',
      'docs/cli.md',
      'docs/benchmarks.md',
      'docs/architecture.md',
      'docs/decisions/README.md',
    ]) {
      expect(files).toContain(page);
    }
  });

  test('every relative link points at an existing file and heading inside the repository', () => {
    expect(findBrokenLinks(ROOT, files)).toEqual([]);
  });

  test('no page cites an issue number, "the spec" or a file outside the repository', () => {
    expect(
      findOutsideCitations(
        ROOT,
        files.filter((file) => !isEarlierRecord(file)),
      ),
    ).toEqual([]);
  });

  test('every decision record has a Status line and is listed in the index', () => {
    const index = Bun.file(join(ROOT, 'docs/decisions/README.md'));
    return index.text().then(async (indexText) => {
      for (const file of files.filter((name) => /^docs\/decisions\/\d{4}-\d{2}-\d{2}-.*\.md$/.test(name))) {
        const text = await Bun.file(join(ROOT, file)).text();
        expect({ file, status: /^Status: \S/m.test(text) }).toEqual({ file, status: true });
        const name = file.slice('docs/decisions/'.length);
        expect({ file, listed: indexText.includes(`(${name})`) }).toEqual({ file, listed: true });
      }
    });
  });

  test('no file is merged with merge=union', async () => {
    const attributes = Bun.file(join(ROOT, '.gitattributes'));
    const text = (await attributes.exists()) ? await attributes.text() : '';
    expect(text).not.toContain('merge=union');
  });
});

describe('the Markdown checker', () => {
  const root = mkdtempSync(join(tmpdir(), 'mango-docs-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs', 'here.md'), '# Here\n\n## Shell tools: bash, zsh\n\n## generate_image\n');

  const write = (text: string): string[] => {
    writeFileSync(join(root, 'README.md'), text);
    return ['README.md'];
  };

  test('accepts links to existing files and headings, and ignores links inside code', () => {
    const files = write(
      '[a](docs/here.md) [b](docs/here.md#shell-tools-bash-zsh) [c](docs/here.md#generate_image) ' +
        '[d](#top) [e](https://example.com/missing.md)\n\n# Top\n\n`[x](gone.md)`\n\n```\n[y](gone.md)\n```\n',
    );
    expect(findBrokenLinks(root, files)).toEqual([]);
  });

  test('reports a missing file, a missing heading and a link out of the repository, with the line', () => {
    const files = write('[a](docs/gone.md)\n[b](docs/here.md#nowhere)\n[c](../outside.md)\n');
    expect(findBrokenLinks(root, files)).toEqual([
      { file: 'README.md', line: 1, message: 'link docs/gone.md: no file docs/gone.md' },
      {
        file: 'README.md',
        line: 2,
        message: 'link docs/here.md#nowhere: docs/here.md has no heading with anchor #nowhere',
      },
      { file: 'README.md', line: 3, message: 'link ../outside.md points outside the repository' },
    ]);
  });

  test('a missing file is accepted only when it is named as allowed', () => {
    const files = write('[a](docs/gone.md)\n[b](docs/also-gone.md)\n');
    expect(findBrokenLinks(root, files, new Set(['docs/gone.md']))).toEqual([
      { file: 'README.md', line: 2, message: 'link docs/also-gone.md: no file docs/also-gone.md' },
    ]);
  });

  test('reports issue numbers, "the spec" and outside paths', () => {
    const files = write(
      'Fixed in issue 15.\nSee #7.\nAs the spec says.\nRead ../shared/design.md.\nFine: 2 cores.\n',
    );
    expect(
      findOutsideCitations(root, files).map((problem) => [problem.line, problem.message.split(':')[0]]),
    ).toEqual([
      [1, 'cites an issue number'],
      [2, 'cites an issue number'],
      [3, 'cites "the spec"'],
      [4, 'cites a file outside the repository'],
    ]);
  });

  test('heading anchors follow the usual rule', () => {
    expect(headingAnchor('Shell tools: bash, zsh, powershell')).toBe('shell-tools-bash-zsh-powershell');
    expect(headingAnchor('Chats (`/chats`, `/chats/ID`)')).toBe('chats-chats-chatsid');
    expect(headingAnchor('generate_image')).toBe('generate_image');
  });
});

describe('the README on a fresh machine', () => {
  test('its install line names every package the sandbox asks for when it cannot run', () => {
    const missing = '/nonexistent/program';
    const asked = [
      { bwrap: missing },
      { setpriv: missing },
      { prlimit: missing },
      { perl: '/usr/nonexistent/perl' },
    ].map((given) => {
      const reason = findPrograms({
        bwrap: '/bin/sh',
        setpriv: '/bin/sh',
        prlimit: '/bin/sh',
        perl: '/bin/sh',
        ...given,
      });
      if (typeof reason !== 'string') throw new Error('a missing program was not noticed');
      return /install (?:the )?"([^"]+)"/.exec(reason)?.[1];
    });
    expect(asked).toEqual(['bubblewrap', 'util-linux', 'util-linux', 'perl-base']);
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const line = /`apt-get install ([^`]+)`/.exec(readme)?.[1]?.split(' ') ?? [];
    expect([...new Set(asked)].filter((name) => name !== undefined && !line.includes(name))).toEqual([]);
  });
});
