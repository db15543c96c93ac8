/**
 * KaTeX's stylesheet and fonts for the web build, served by this server like every other file of the
 * app (no CDN: the page's policy allows this origin only). The build has no subdirectories, so the
 * stylesheet's `url(fonts/KaTeX_Main-Regular.woff2)` becomes `url(KaTeX_Main-Regular.woff2)` beside it.
 * Only the WOFF2 fonts are shipped: every browser that runs the app's ES modules reads WOFF2, so the
 * WOFF and TrueType fallbacks are dropped from each `src`. KaTeX's licence goes along as
 * `katex-LICENSE.txt`. The page loads the stylesheet only when an answer holds math
 * (`web/math-typesetter.ts`), and the browser fetches a font only when a formula uses it.
 */
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The stylesheet's name in the build; `web/math-typesetter.ts` links `/katex.css`. */
export const KATEX_STYLESHEET_FILE = 'katex.css';
export const KATEX_LICENSE_FILE = 'katex-LICENSE.txt';

/** One font source list of KaTeX's stylesheet: its WOFF2, WOFF and TrueType files of one face. */
const FONT_SOURCES_PATTERN =
  /url\(fonts\/(KaTeX_[A-Za-z0-9_-]+)\.woff2\) format\("woff2"\),url\(fonts\/\1\.woff\) format\("woff"\),url\(fonts\/\1\.ttf\) format\("truetype"\)/g;

export interface KatexStylesheet {
  css: string;
  /** The font files (`KaTeX_Main-Regular.woff2`…) the stylesheet names, each once. */
  fonts: string[];
}

/**
 * KaTeX's minified stylesheet with each face's sources reduced to its WOFF2 file beside the stylesheet.
 * Throws when a `url()` is left that this did not rewrite (a new KaTeX whose stylesheet changed shape):
 * the build must not ship a stylesheet pointing at files it did not copy.
 */
export function rewriteKatexStylesheet(css: string): KatexStylesheet {
  const fonts = new Set<string>();
  const rewritten = css.replace(FONT_SOURCES_PATTERN, (_match, face: string) => {
    fonts.add(`${face}.woff2`);
    return `url(${face}.woff2) format("woff2")`;
  });
  const leftover = [...rewritten.matchAll(/url\(([^)]*)\)/g)]
    .map((match) => match[1]!)
    .filter((url) => !fonts.has(url));
  if (leftover.length > 0) {
    throw new Error(
      `web build: KaTeX's stylesheet names ${leftover.join(', ')}, which the build does not ship; ` +
        'expected every url() to be a WOFF2/WOFF/TrueType triple under fonts/.',
    );
  }
  if (fonts.size === 0) throw new Error("web build: KaTeX's stylesheet names no font.");
  return { css: rewritten, fonts: [...fonts].sort() };
}

/** The installed katex package's directory. */
export function katexPackageDirectory(fromDirectory: string): string {
  return path.dirname(Bun.resolveSync('katex/package.json', fromDirectory));
}

/** Writes `katex.css`, its fonts and KaTeX's licence into `outputDirectory`; returns the names written. */
export async function writeKatexAssets(outputDirectory: string, fromDirectory: string): Promise<string[]> {
  const packageDirectory = katexPackageDirectory(fromDirectory);
  const distribution = path.join(packageDirectory, 'dist');
  const { css, fonts } = rewriteKatexStylesheet(
    await readFile(path.join(distribution, 'katex.min.css'), 'utf8'),
  );
  await writeFile(path.join(outputDirectory, KATEX_STYLESHEET_FILE), `${css.trimEnd()}\n`);
  for (const font of fonts) {
    await copyFile(path.join(distribution, 'fonts', font), path.join(outputDirectory, font));
  }
  await copyFile(path.join(packageDirectory, 'LICENSE'), path.join(outputDirectory, KATEX_LICENSE_FILE));
  return [KATEX_STYLESHEET_FILE, ...fonts, KATEX_LICENSE_FILE];
}
