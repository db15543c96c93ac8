/**
 * Builds the browser app (`web/`) into a static directory (default `dist/web/`) with Bun's bundler:
 * `app.js` (the ES module entry, minified, with a linked source map; code loaded on demand, such as a
 * highlighter language, in `chunk-<hash>.js` files beside it), `app.css` and `index.html`, and beside each text file its gzip and brotli copies (`app.js.gz`,
 * `app.js.br`; `precompress-web-files.ts`), which the server sends to browsers that accept them.
 * `app.css` is the stylesheets of `web/styles/` joined in file-name order (their cascade order), so each
 * part of the style stays a file of one concern while the page still loads one stylesheet.
 * KaTeX's stylesheet and WOFF2 fonts (`katex.css`, `KaTeX_*.woff2`, `katex-assets.ts`) go beside them;
 * the page fetches them, and KaTeX's own chunk, only when an answer holds math.
 * No framework and no CDN: the build holds everything the page runs.
 *
 * Last it writes `build-manifest.json`, the SHA-256 of every file, which the server checks when it loads
 * the build into memory (`load-web-app.ts`).
 *
 * `isWebBuildStale` lets `npm start` rebuild only when the output is missing or older than a source.
 */
import { copyFile, mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeKatexAssets } from './katex-assets.ts';
import {
  isWebFileName,
  sha256Hex,
  WEB_BUILD_MANIFEST_FILE,
  WEB_BUILD_MANIFEST_FORMAT,
  type WebBuildManifest,
} from './load-web-app.ts';
import { precompressWebFiles } from './precompress-web-files.ts';

/** Repository root (this file lives in `src/web/`). */
const PROJECT_ROOT = path.resolve(import.meta.dir, '..', '..');

export const DEFAULT_WEB_SOURCE_DIRECTORY = path.join(PROJECT_ROOT, 'web');
export const DEFAULT_WEB_OUTPUT_DIRECTORY = path.join(PROJECT_ROOT, 'dist', 'web');

/** Files copied as they are; `app.css` is joined from `styles/`, the rest comes from bundling `main.ts`. */
const STATIC_FILES = ['index.html', 'favicon.svg'];
/** The folder of stylesheets joined into `app.css`, in file-name order. */
export const STYLES_DIRECTORY = 'styles';
/** Written last, so its presence means the build finished. */
export const BUILD_MARKER_FILE = WEB_BUILD_MANIFEST_FILE;

export interface WebBuildOptions {
  sourceDirectory?: string;
  outputDirectory?: string;
  minify?: boolean;
}

export interface WebBuildResult {
  outputDirectory: string;
  files: string[];
  durationMs: number;
}

/** Builds the app; throws with the bundler's messages when the build fails (the old output is removed). */
export async function buildWebApp(options: WebBuildOptions = {}): Promise<WebBuildResult> {
  const started = performance.now();
  const sourceDirectory = options.sourceDirectory ?? DEFAULT_WEB_SOURCE_DIRECTORY;
  const outputDirectory = options.outputDirectory ?? DEFAULT_WEB_OUTPUT_DIRECTORY;
  await rm(outputDirectory, { recursive: true, force: true });
  await mkdir(outputDirectory, { recursive: true });
  const result = await Bun.build({
    entrypoints: [path.join(sourceDirectory, 'main.ts')],
    outdir: outputDirectory,
    // Highlighter languages are imported on first use, each its own chunk: the first load stays small.
    splitting: true,
    naming: { entry: 'app.[ext]', chunk: 'chunk-[hash].[ext]' },
    target: 'browser',
    format: 'esm',
    minify: options.minify ?? true,
    sourcemap: 'linked',
  });
  if (!result.success) {
    const messages = result.logs.map((log) => String(log.message ?? log)).join('\n');
    throw new Error(`web build failed:\n${messages}`);
  }
  for (const file of STATIC_FILES) {
    await copyFile(path.join(sourceDirectory, file), path.join(outputDirectory, file));
  }
  await writeFile(path.join(outputDirectory, 'app.css'), await joinStylesheets(sourceDirectory));
  await writeKatexAssets(outputDirectory, PROJECT_ROOT);
  await precompressWebFiles(outputDirectory, WEB_BUILD_MANIFEST_FILE);
  await writeBuildManifest(outputDirectory);
  const files = (await readdir(outputDirectory)).sort();
  return { outputDirectory, files, durationMs: performance.now() - started };
}

/**
 * The `.css` files of `<sourceDirectory>/styles/`, sorted by name and joined with a blank line between
 * them. A missing or empty folder is an error: a page without its styles must not be built silently.
 */
export async function joinStylesheets(sourceDirectory: string): Promise<string> {
  const directory = path.join(sourceDirectory, STYLES_DIRECTORY);
  const names = (await readdir(directory)).filter((name) => name.endsWith('.css')).sort();
  if (names.length === 0) throw new Error(`web build: ${directory} holds no .css file.`);
  const parts: string[] = [];
  for (const name of names) parts.push((await readFile(path.join(directory, name), 'utf8')).trimEnd());
  return `${parts.join('\n\n')}\n`;
}

/**
 * Records the SHA-256 of every file in `directory` (all plain names; a build has no subdirectories) in
 * its manifest, written last. Returns the manifest.
 */
export async function writeBuildManifest(directory: string): Promise<WebBuildManifest> {
  const files: Record<string, string> = {};
  const entries = await readdir(directory, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name === WEB_BUILD_MANIFEST_FILE) continue;
    if (!entry.isFile() || !isWebFileName(entry.name)) {
      throw new Error(`web build output ${path.join(directory, entry.name)} is not a plain file.`);
    }
    files[entry.name] = sha256Hex(await readFile(path.join(directory, entry.name)));
  }
  const manifest: WebBuildManifest = { format: WEB_BUILD_MANIFEST_FORMAT, files };
  await writeFile(path.join(directory, WEB_BUILD_MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

async function newestModification(directory: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const info = await stat(path.join(entry.parentPath, entry.name));
    newest = Math.max(newest, info.mtimeMs);
  }
  return newest;
}

/**
 * True when the build is missing or any file under the source directory (or an extra source file,
 * such as the shared types the app imports) is newer than the build marker.
 */
export async function isWebBuildStale(
  options: WebBuildOptions & { extraSources?: string[] } = {},
): Promise<boolean> {
  const sourceDirectory = options.sourceDirectory ?? DEFAULT_WEB_SOURCE_DIRECTORY;
  const outputDirectory = options.outputDirectory ?? DEFAULT_WEB_OUTPUT_DIRECTORY;
  let builtAt: number;
  try {
    builtAt = (await stat(path.join(outputDirectory, BUILD_MARKER_FILE))).mtimeMs;
    await stat(path.join(outputDirectory, 'app.js'));
  } catch {
    return true;
  }
  let newestSource = await newestModification(sourceDirectory);
  for (const extra of options.extraSources ?? []) {
    try {
      newestSource = Math.max(newestSource, (await stat(extra)).mtimeMs);
    } catch {
      // A missing extra source cannot make the build stale.
    }
  }
  return newestSource > builtAt;
}

/** Builds when missing or stale; returns whether it built. Used by `npm start`. */
export async function ensureWebBuild(options: WebBuildOptions = {}): Promise<boolean> {
  if (!(await isWebBuildStale(options))) return false;
  await buildWebApp(options);
  return true;
}

/** `bun src/web/web-build.ts [--if-stale]`: `npm run build`, and `npm start` (with --if-stale). */
if (import.meta.main) {
  const onlyIfStale = process.argv.includes('--if-stale');
  if (onlyIfStale && !(await isWebBuildStale())) {
    console.log('web app is up to date (dist/web)');
  } else {
    const built = await buildWebApp();
    const where = path.relative(process.cwd(), built.outputDirectory) || '.';
    const chunks = built.files.filter((name) => name.startsWith('chunk-')).length;
    const fonts = built.files.filter((name) => name.endsWith('.woff2')).length;
    const main = built.files
      .filter((name) => !name.startsWith('chunk-') && !name.endsWith('.woff2'))
      .join(', ');
    console.log(
      `built ${main}, ${fonts} font files and ${chunks} on-demand chunk files into ${where} ` +
        `in ${Math.round(built.durationMs)} ms`,
    );
  }
}
