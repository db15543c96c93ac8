/**
 * Checks of the repository's Markdown, shared by the docs tests: every relative link names a file that
 * exists inside the repository (and, with an anchor, a heading that exists in it), and no page cites
 * what a reader of the repository cannot open (the shapes in citations.ts).
 * Pure apart from reading the files it is given; links inside code are not links and are skipped.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { citationsIn } from './citations.ts';

export interface MarkdownProblem {
  /** The file, relative to the root. */
  file: string;
  line: number;
  message: string;
}

/** README.md, CONTRIBUTING.md and every `.md` under `docs/`, relative to `root`, sorted. */
export function listRepositoryMarkdown(root: string): string[] {
  const files = ['README.md', 'CONTRIBUTING.md'].filter((name) => existsSync(join(root, name)));
  const walk = (directory: string): void => {
    for (const name of readdirSync(join(root, directory)).sort()) {
      const path = join(directory, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (name.endsWith('.md')) files.push(path.split(sep).join('/'));
    }
  };
  if (existsSync(join(root, 'docs'))) walk('docs');
  return files;
}

/** The text with fenced code blocks and inline code spans blanked, line structure kept. */
export function withoutCode(text: string): string {
  let inFence = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        inFence = !inFence;
        return '';
      }
      return inFence ? '' : line.replace(/`[^`]*`/g, '``');
    })
    .join('\n');
}

/** The anchor a heading gets on the usual Markdown hosts: lower case, punctuation dropped, spaces to `-`. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(path: string): Set<string> {
  const anchors = new Set<string>();
  let inFence = false;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) anchors.add(headingAnchor(heading[1]!));
  }
  return anchors;
}

/**
 * Broken relative links in `files` (relative to `root`). A link may point at a missing file only when
 * that file is named in `allowedMissing` (relative to `root`).
 */
export function findBrokenLinks(
  root: string,
  files: readonly string[],
  allowedMissing: ReadonlySet<string> = new Set(),
): MarkdownProblem[] {
  const problems: MarkdownProblem[] = [];
  const absoluteRoot = resolve(root);
  for (const file of files) {
    const lines = withoutCode(readFileSync(join(root, file), 'utf8')).split('\n');
    lines.forEach((text, index) => {
      for (const match of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = match[1]!;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const report = (message: string) => problems.push({ file, line: index + 1, message });
        const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
        const absolute =
          pathPart === '' ? join(absoluteRoot, file) : resolve(absoluteRoot, dirname(file), pathPart);
        const inside = relative(absoluteRoot, absolute);
        if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
          report(`link ${target} points outside the repository`);
          continue;
        }
        if (!existsSync(absolute)) {
          if (!allowedMissing.has(inside.split(sep).join('/'))) report(`link ${target}: no file ${inside}`);
          continue;
        }
        if (anchor !== undefined && absolute.endsWith('.md') && !anchorsOf(absolute).has(anchor)) {
          report(`link ${target}: ${inside} has no heading with anchor #${anchor}`);
        }
      }
    });
  }
  return problems;
}

/** Lines of `files` that cite something a reader of the repository cannot open. Code counts too. */
export function findOutsideCitations(root: string, files: readonly string[]): MarkdownProblem[] {
  const problems: MarkdownProblem[] = [];
  for (const file of files) {
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .forEach((text, index) => {
        for (const what of citationsIn(text)) {
          problems.push({ file, line: index + 1, message: `cites ${what}: ${text.trim()}` });
        }
      });
  }
  return problems;
}
