/**
 * No comment in the code cites what a reader of the repository cannot open — an issue number, the design
 * document or brief the code was written from, a path outside the repository — so every comment states
 * its reason itself or links a page in `docs/`. Words in strings, test names and patterns are code and
 * are left alone. The scanner and the checker are tested on planted text and files, so the check can fail.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { findCommentCitations } from './comment-citations.ts';
import { listRepositoryFiles } from './repository-files.ts';
import { sourceComments } from './source-comments.ts';

const ROOT = resolve(import.meta.dir, '..', '..');
const SCANNED_DIRECTORIES = ['src', 'web', 'bench', 'scripts', 'tests'];

describe('the repository source', () => {
  test('no comment cites an issue number, the design document, the brief or a file outside the repository', () => {
    const files = listRepositoryFiles(ROOT, SCANNED_DIRECTORIES);
    expect(files.length).toBeGreaterThan(400);
    expect(findCommentCitations(ROOT, files)).toEqual([]);
    // Parsing every file takes about two seconds on an idle machine; the budget is for a loaded one.
  }, 60_000);
});

describe('the comment scanner', () => {
  const texts = (source: string, language: 'script' | 'css' | 'html' = 'script') =>
    sourceComments(source, language).map((comment) => [comment.line, comment.text]);

  test('finds line and block comments with their lines', () => {
    expect(texts('const a = 1; // one\n/**\n * two\n */\nconst b = 2;\n')).toEqual([
      [1, '// one'],
      [2, '/**'],
      [3, ' * two'],
      [4, ' */'],
    ]);
  });

  test('skips strings, template literals with substitutions and regular-expression literals', () => {
    const source = [
      "test('issue a token // not a comment', () => {});",
      'const url = "https://example.com/#7";',
      `const t = \`a \${ { x: \`/* inner */\` }.x } // still template \${1}\`; // after`,
      'const re = /\\/\\/ issue 7 [/*]/g.test(x); const half = 4 / 2; // real',
      'return /#7/.source; /* end */',
    ].join('\n');
    expect(texts(source)).toEqual([
      [3, '// after'],
      [4, '// real'],
      [5, '/* end */'],
    ]);
  });

  test('an escaped quote does not end a string', () => {
    expect(texts("const s = 'it\\'s // here'; // there\n")).toEqual([[1, '// there']]);
  });

  test('CSS has block comments only; HTML has <!-- --> comments', () => {
    expect(texts('a { color: #161614; background: url(//x/y.png); } /* a\n b */\n', 'css')).toEqual([
      [1, '/* a'],
      [2, ' b */'],
    ]);
    expect(texts('<p>issue 7</p>\n<!-- one -->\n<a href="//x"></a><!--\ntwo -->\n', 'html')).toEqual([
      [2, '<!-- one -->'],
      [3, '<!--'],
      [4, 'two -->'],
    ]);
  });
});

describe('the comment checker', () => {
  const root = mkdtempSync(join(tmpdir(), 'mango-comments-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'src', '__fixtures__'), { recursive: true });
  mkdirSync(join(root, 'web'));
  writeFileSync(
    join(root, 'src', 'planted.ts'),
    [
      '/**',
      ' * The loop (issue 7, "The loop"). Fine: 2 cores.',
      ' * Reads (issue 3, "Paths").',
      ' */',
      "test('issues a token for issue 7', () => {}); // see #12",
      'const a = 1; // spec: "Tool Mapper"',
      '// as the spec says; design: "Data"; see design.md',
      '// brief: "no secrets"; from ../shared/tools-system.md',
      '// one place (house style rule 5), see style.md',
      '// a link to docs/design.md and a #fragment are fine',
      '',
    ].join('\n'),
  );
  writeFileSync(join(root, 'src', '__fixtures__', 'bad.ts'), '// issue 9\n');
  writeFileSync(join(root, 'web', 'app.css'), '/* spec: colours */\n.a { color: #123456; }\n');
  writeFileSync(join(root, 'web', 'notes.txt'), 'issue 4\n');

  test('reports every citation shape with its file and line, and nothing in code, fixtures or other files', () => {
    const files = listRepositoryFiles(root, ['src', 'web', 'bench']);
    expect(files).toEqual(['src/planted.ts', 'web/app.css', 'web/notes.txt']);
    expect(
      findCommentCitations(root, files).map((problem) => [
        problem.file,
        problem.line,
        problem.message.split(':')[0],
      ]),
    ).toEqual([
      ['src/planted.ts', 2, 'cites an issue number'],
      ['src/planted.ts', 3, 'cites an issue number'],
      ['src/planted.ts', 5, 'cites an issue number'],
      ['src/planted.ts', 6, 'cites "the spec"'],
      ['src/planted.ts', 7, 'cites "the spec"'],
      ['src/planted.ts', 7, 'cites the design document'],
      ['src/planted.ts', 8, 'cites the task brief'],
      ['src/planted.ts', 8, 'cites a file outside the repository'],
      ['src/planted.ts', 9, 'cites the style guide'],
      ['web/app.css', 1, 'cites "the spec"'],
    ]);
  });

  test('the report quotes the comment', () => {
    const [first] = findCommentCitations(root, ['src/planted.ts']);
    expect(first).toEqual({
      file: 'src/planted.ts',
      line: 2,
      message: 'cites an issue number: * The loop (issue 7, "The loop"). Fine: 2 cores.',
    });
  });
});
