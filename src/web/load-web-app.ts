/**
 * Loads a built web app into memory, once, at server start: the files its build manifest lists, each
 * checked against the SHA-256 the build recorded. The server then serves only these bytes, so a file
 * written into the build directory while the server runs (by a tool, or anyone) changes nothing that
 * any browser receives; a restart loads it again and the hash check refuses what the build did not write.
 *
 * A directory without a manifest is "not built" (`undefined`): the server runs its API and answers the
 * pages with a 503 that says how to build. A manifest whose files do not match is refused with a
 * `WebAppIntegrityError` naming the file, what was expected and what was found.
 * See docs/decisions/2026-12-01-web-app-bytes.md.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import path from 'node:path';
import { MangoError } from '../errors/mango-error.ts';

/** Written last by the build, so its presence means the build finished. */
export const WEB_BUILD_MANIFEST_FILE = 'build-manifest.json';
export const WEB_BUILD_MANIFEST_FORMAT = 1;
/** A bundle (with its source map) is well under this; more means the directory is not a web build. */
export const MAX_WEB_FILE_BYTES = 32 * 1024 * 1024;
/** One path segment of ordinary characters: no directories, no dot files, nothing to resolve. */
const FILE_NAME_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

export interface WebBuildManifest {
  format: typeof WEB_BUILD_MANIFEST_FORMAT;
  /** File name → lowercase hex SHA-256 of its bytes. */
  files: Record<string, string>;
}

export interface WebAppFile {
  bytes: Uint8Array<ArrayBuffer>;
  sha256: string;
}

export interface WebApp {
  /** The build directory the bytes were read from (for messages only; it is never read again). */
  directory: string;
  files: ReadonlyMap<string, WebAppFile>;
}

/** The build on disk does not match its manifest; the server refuses to start on it. */
export class WebAppIntegrityError extends MangoError {
  override name = 'WebAppIntegrityError';
  constructor(message: string, options?: ErrorOptions) {
    super('web_app_integrity', message, options);
  }
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function isWebFileName(name: string): boolean {
  return FILE_NAME_PATTERN.test(name);
}

/** Reads a regular file without following a symlink or blocking on a FIFO; undefined when absent. */
async function readRegularFile(
  filePath: string,
  limit: number,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(filePath, OPEN_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new WebAppIntegrityError(`${filePath} is a symbolic link, not a built file.`);
    throw error;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new WebAppIntegrityError(`${filePath} is not a regular file.`);
    if (info.size > limit) {
      throw new WebAppIntegrityError(
        `${filePath} is ${info.size} bytes; a web build file is at most ${limit}.`,
      );
    }
    return new Uint8Array(await handle.readFile());
  } finally {
    await handle.close();
  }
}

function parseManifest(text: string, where: string): WebBuildManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new WebAppIntegrityError(`${where} is not valid JSON: ${(error as Error).message}.`);
  }
  const record = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  if (record.format !== WEB_BUILD_MANIFEST_FORMAT) {
    throw new WebAppIntegrityError(
      `${where} has format ${JSON.stringify(record.format)}; expected ${WEB_BUILD_MANIFEST_FORMAT}.`,
    );
  }
  const files = record.files;
  if (typeof files !== 'object' || files === null || Array.isArray(files)) {
    throw new WebAppIntegrityError(`${where} has no "files" object.`);
  }
  for (const [name, hash] of Object.entries(files)) {
    if (!isWebFileName(name)) {
      throw new WebAppIntegrityError(
        `${where} lists ${JSON.stringify(name)}, which is not a plain file name.`,
      );
    }
    if (typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash)) {
      throw new WebAppIntegrityError(
        `${where} gives ${name} the hash ${JSON.stringify(hash)}; expected 64 hex digits.`,
      );
    }
  }
  if (!('index.html' in files)) throw new WebAppIntegrityError(`${where} does not list index.html.`);
  return { format: WEB_BUILD_MANIFEST_FORMAT, files: files as Record<string, string> };
}

const REBUILD_HINT = 'Rebuild the web app with `npm run build` (or `npm start`, which rebuilds it).';

/**
 * Reads and verifies the build in `directory`. Only files the manifest lists are loaded; anything else in
 * the directory is never served.
 */
export async function loadWebApp(directory: string): Promise<WebApp | undefined> {
  const root = path.resolve(directory);
  const manifestPath = path.join(root, WEB_BUILD_MANIFEST_FILE);
  const manifestBytes = await readRegularFile(manifestPath, MAX_WEB_FILE_BYTES);
  if (manifestBytes === undefined) return undefined;
  const manifest = parseManifest(new TextDecoder().decode(manifestBytes), manifestPath);
  const files = new Map<string, WebAppFile>();
  for (const [name, expected] of Object.entries(manifest.files)) {
    const filePath = path.join(root, name);
    const bytes = await readRegularFile(filePath, MAX_WEB_FILE_BYTES);
    if (bytes === undefined) {
      throw new WebAppIntegrityError(
        `The web build in ${root} is incomplete: ${name} is missing. ${REBUILD_HINT}`,
      );
    }
    const actual = sha256Hex(bytes);
    if (actual !== expected) {
      throw new WebAppIntegrityError(
        `The web build in ${root} was changed after it was built: ${name} has SHA-256 ${actual}, ` +
          `its build recorded ${expected}. ${REBUILD_HINT}`,
      );
    }
    files.set(name, { bytes, sha256: actual });
  }
  return { directory: root, files };
}
