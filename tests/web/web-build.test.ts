import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rewriteKatexStylesheet } from '../../src/web/katex-assets.ts';
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
  const [chunks, fonts, files] = [
    result.files.filter((name) => name.startsWith('chunk-')),
    result.files.filter((name) => name.endsWith('.woff2')),
    result.files.filter((name) => !name.startsWith('chunk-') && !name.endsWith('.woff2')),
  ];
  expect(fonts.length).toBe(20);
  expect(fonts).toContain('KaTeX_Main-Regular.woff2');
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
    'katex-LICENSE.txt',
    'katex-LICENSE.txt.br',
    'katex-LICENSE.txt.gz',
    'katex.css',
    'katex.css.br',
    'katex.css.gz',
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
  const styles = await Promise.all(
    ['app.css', 'katex.css'].map((name) => readFile(path.join(outputDirectory, name), 'utf8')),
  );
  for (const text of [html, script, ...styles])
    expect(text).not.toMatch(/(?:src|href)=["']?(?:https?:)?\/\//);
  for (const sheet of styles) {
    expect(sheet).not.toContain('@import');
    expect(sheet).not.toMatch(/url\(\s*["']?(?:https?:)?\/\//);
  }
});

test('KaTeX is a chunk of its own, not in app.js; its stylesheet names only the fonts shipped beside it', async () => {
  const names = await readdir(outputDirectory);
  const withKatex: string[] = [];
  for (const name of names.filter((file) => file.endsWith('.js'))) {
    if ((await readFile(path.join(outputDirectory, name), 'utf8')).includes('KaTeX parse error'))
      withKatex.push(name);
  }
  expect(withKatex.length).toBe(1);
  expect(withKatex[0]).toMatch(/^chunk-[a-z0-9]+\.js$/);
  const css = await readFile(path.join(outputDirectory, 'katex.css'), 'utf8');
  const urls = [...css.matchAll(/url\(([^)]*)\)/g)].map((match) => match[1]!);
  expect(urls.length).toBe(20);
  for (const url of urls) expect(names).toContain(url);
  expect(css).not.toMatch(/\.woff\)|\.ttf\)|fonts\//);
});

test('a KaTeX stylesheet naming a file the build would not ship is refused', () => {
  const face = (name: string) =>
    `@font-face{font-family:K;src:url(fonts/${name}.woff2) format("woff2"),url(fonts/${name}.woff) format("woff"),url(fonts/${name}.ttf) format("truetype")}`;
  expect(rewriteKatexStylesheet(`${face('KaTeX_Main-Regular')}.x{background:none}`)).toEqual({
    css: '@font-face{font-family:K;src:url(KaTeX_Main-Regular.woff2) format("woff2")}.x{background:none}',
    fonts: ['KaTeX_Main-Regular.woff2'],
  });
  expect(() => rewriteKatexStylesheet(`${face('KaTeX_Main-Regular')}.x{background:url(img/a.png)}`)).toThrow(
    "web build: KaTeX's stylesheet names img/a.png, which the build does not ship; expected every url() to be a WOFF2/WOFF/TrueType triple under fonts/.",
  );
  expect(() => rewriteKatexStylesheet('.katex{font:1em serif}')).toThrow(
    "web build: KaTeX's stylesheet names no font.",
  );
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
    '08-files.css',
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
