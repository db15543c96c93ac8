import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtemp, readFile, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BUILD_MARKER_FILE, buildWebApp, ensureWebBuild, isWebBuildStale } from '../../src/web/web-build.ts';

let outputDirectory: string;

beforeAll(async () => {
  outputDirectory = path.join(await mkdtemp(path.join(tmpdir(), 'mango-web-build-')), 'web');
});
afterAll(async () => {
  await rm(path.dirname(outputDirectory), { recursive: true, force: true });
});

test('a missing build is stale; building produces the shell, bundle, styles and source map', async () => {
  expect(await isWebBuildStale({ outputDirectory })).toBe(true);
  const result = await buildWebApp({ outputDirectory });
  const [chunks, files] = [
    result.files.filter((name) => name.startsWith('chunk-')),
    result.files.filter((name) => !name.startsWith('chunk-')),
  ];
  expect(files).toEqual([
    'app.css',
    'app.js',
    'app.js.map',
    'approvals.css',
    'build-manifest.json',
    'favicon.svg',
    'index.html',
  ]);
  // One script and one source map per highlighter language, loaded on first use.
  expect(chunks.filter((name) => name.endsWith('.js')).length).toBeGreaterThanOrEqual(24);
  expect(chunks.every((name) => /^chunk-[a-z0-9]+\.js(?:\.map)?$/.test(name))).toBe(true);
  expect(await isWebBuildStale({ outputDirectory })).toBe(false);
  expect(await ensureWebBuild({ outputDirectory })).toBe(false);
});

test('the bundle loads nothing from another origin', async () => {
  const html = await readFile(path.join(outputDirectory, 'index.html'), 'utf8');
  const script = await readFile(path.join(outputDirectory, 'app.js'), 'utf8');
  const styles = [
    await readFile(path.join(outputDirectory, 'app.css'), 'utf8'),
    await readFile(path.join(outputDirectory, 'approvals.css'), 'utf8'),
  ];
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
