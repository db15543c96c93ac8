import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  BUILD_MARKER_FILE,
  buildWebApp,
  ensureWebBuild,
  isWebBuildStale,
  joinStylesheets,
} from '../../src/web/web-build.ts';

let outputDirectory: string;

beforeAll(async () => {
  outputDirectory = path.join(await mkdtemp(path.join(tmpdir(), 'mango-web-build-')), 'web');
});
afterAll(async () => {
  await rm(path.dirname(outputDirectory), { recursive: true, force: true });
});

test('a missing build is stale; building produces the shell, bundle, styles, source map and compressed copies', async () => {
  expect(await isWebBuildStale({ outputDirectory })).toBe(true);
  const result = await buildWebApp({ outputDirectory });
  const [chunks, files] = [
    result.files.filter((name) => name.startsWith('chunk-')),
    result.files.filter((name) => !name.startsWith('chunk-')),
  ];
  expect(files).toEqual([
    'app.css',
    'app.css.br',
    'app.css.gz',
    'app.js',
    'app.js.br',
    'app.js.gz',
    'app.js.map',
    'build-manifest.json',
    'favicon.svg',
    'favicon.svg.br',
    'favicon.svg.gz',
    'index.html',
    'index.html.br',
    'index.html.gz',
  ]);
  // One script and one source map per highlighter language, loaded on first use.
  expect(chunks.filter((name) => name.endsWith('.js')).length).toBeGreaterThanOrEqual(24);
  expect(chunks.every((name) => /^chunk-[a-z0-9]+\.js(?:\.map|\.br|\.gz)?$/.test(name))).toBe(true);
  expect(await isWebBuildStale({ outputDirectory })).toBe(false);
  expect(await ensureWebBuild({ outputDirectory })).toBe(false);
});

test('the bundle loads nothing from another origin', async () => {
  const html = await readFile(path.join(outputDirectory, 'index.html'), 'utf8');
  const script = await readFile(path.join(outputDirectory, 'app.js'), 'utf8');
  const styles = [await readFile(path.join(outputDirectory, 'app.css'), 'utf8')];
  for (const text of [html, script, ...styles])
    expect(text).not.toMatch(/(?:src|href)=["']?(?:https?:)?\/\//);
  for (const sheet of styles) {
    expect(sheet).not.toContain('@import');
    expect(sheet).not.toMatch(/url\(\s*["']?(?:https?:)?\/\//);
  }
});

test('a source newer than the build makes it stale, and ensureWebBuild rebuilds it', async () => {
  const marker = path.join(outputDirectory, BUILD_MARKER_FILE);
  // Age the build instead of touching a source file: every checkout's sources are newer than 2000.
  const longAgo = new Date('2000-01-01T00:00:00Z');
  await utimes(marker, longAgo, longAgo);
  expect(await isWebBuildStale({ outputDirectory })).toBe(true);
  expect(await ensureWebBuild({ outputDirectory })).toBe(true);
  expect(await isWebBuildStale({ outputDirectory })).toBe(false);
});

test('app.css is every stylesheet of web/styles/ in file-name order, each whole', async () => {
  const styles = await readFile(path.join(outputDirectory, 'app.css'), 'utf8');
  const directory = path.join(import.meta.dir, '..', '..', 'web', 'styles');
  const names = [
    '01-base.css',
    '02-markdown.css',
    '03-controls.css',
    '04-chat.css',
    '05-chat-panels.css',
    '06-approvals.css',
    '07-chat-list.css',
    '07-message-actions.css',
    '07-new-chat.css',
    '07-system-prompt.css',
  ];
  let position = 0;
  for (const name of names) {
    const part = (await readFile(path.join(directory, name), 'utf8')).trimEnd();
    const found = styles.indexOf(part, position);
    expect({ name, found: found >= position }).toEqual({ name, found: true });
    position = found + part.length;
  }
  expect(styles.length).toBe(position + 1);
});

test('joinStylesheets sorts by name, skips other files, and refuses an empty folder', async () => {
  const source = await mkdtemp(path.join(tmpdir(), 'mango-styles-'));
  try {
    await mkdir(path.join(source, 'styles'));
    await expect(joinStylesheets(source)).rejects.toThrow(
      `web build: ${path.join(source, 'styles')} holds no .css file.`,
    );
    await writeFile(path.join(source, 'styles', '20-b.css'), '.b {}\n\n');
    await writeFile(path.join(source, 'styles', '10-a.css'), '.a {}');
    await writeFile(path.join(source, 'styles', 'notes.txt'), 'not a stylesheet');
    expect(await joinStylesheets(source)).toBe('.a {}\n\n.b {}\n');
  } finally {
    await rm(source, { recursive: true, force: true });
  }
});
