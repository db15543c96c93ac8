/**
 * Comments in source files that cite what a reader of the repository cannot open (the shapes in
 * citations.ts). Only comments are read: the same words in a string, a test name or a pattern are code
 * and are not citations.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { citationsIn } from './citations.ts';
import type { MarkdownProblem } from './markdown-check.ts';
import { sourceComments, sourceLanguageOf } from './source-comments.ts';

/** One problem per citing comment line of `files` (relative to `root`); files of no known language are skipped. */
export function findCommentCitations(root: string, files: readonly string[]): MarkdownProblem[] {
  const problems: MarkdownProblem[] = [];
  for (const file of files) {
    const language = sourceLanguageOf(file);
    if (language === null) continue;
    for (const comment of sourceComments(readFileSync(join(root, file), 'utf8'), language)) {
      for (const what of citationsIn(comment.text)) {
        problems.push({ file, line: comment.line, message: `cites ${what}: ${comment.text.trim()}` });
      }
    }
  }
  return problems;
}
