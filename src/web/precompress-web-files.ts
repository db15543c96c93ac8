/**
 * Writes a gzip (`NAME.gz`, level 9) and a brotli (`NAME.br`, quality 11) copy beside every text file
 * of a web build, once, at build time, so the server never compresses per request and serves only bytes
 * the build manifest vouches for. A copy is written only when it is smaller than the file; source maps
 * are left alone (only developer tools fetch them, and brotli at quality 11 is slow on them).
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

/** The encodings a build carries copies for, in the order the server prefers them. */
export const PRECOMPRESSED_ENCODINGS = ['br', 'gzip'] as const;
export type PrecompressedEncoding = (typeof PRECOMPRESSED_ENCODINGS)[number];

/** The suffix of each encoding's copy: `app.js` → `app.js.br`. */
export const ENCODING_SUFFIX: Record<PrecompressedEncoding, string> = { br: '.br', gzip: '.gz' };

const COMPRESSIBLE_EXTENSIONS = new Set(['.js', '.css', '.html', '.svg', '.json', '.txt']);

/** True for the name of a compressed copy (`app.js.br`), which is never served under its own name. */
export function isPrecompressedCopyName(name: string): boolean {
  return Object.values(ENCODING_SUFFIX).some((suffix) => name.endsWith(suffix));
}

export function compressWith(encoding: PrecompressedEncoding, bytes: Uint8Array): Uint8Array {
  return encoding === 'br'
    ? brotliCompressSync(bytes, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
        },
      })
    : gzipSync(bytes, { level: 9 });
}

/** Compresses the text files in `directory`; returns the names of the copies written. */
export async function precompressWebFiles(directory: string, manifestName: string): Promise<string[]> {
  const written: string[] = [];
  for (const name of (await readdir(directory)).sort()) {
    if (name === manifestName || !COMPRESSIBLE_EXTENSIONS.has(path.extname(name))) continue;
    const bytes = await readFile(path.join(directory, name));
    for (const encoding of PRECOMPRESSED_ENCODINGS) {
      const compressed = compressWith(encoding, bytes);
      if (compressed.byteLength >= bytes.byteLength) continue;
      const copy = `${name}${ENCODING_SUFFIX[encoding]}`;
      await writeFile(path.join(directory, copy), compressed);
      written.push(copy);
    }
  }
  return written;
}
