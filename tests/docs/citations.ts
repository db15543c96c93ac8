/**
 * The shapes of a citation a reader of the repository cannot follow: an issue number, the design
 * document, task brief or style guide the code was written from, a path outside the repository. One list, shared by
 * the Markdown check and the source-comment check, so both reject exactly the same shapes.
 */

export interface CitationShape {
  pattern: RegExp;
  /** What the text cites, for the report: `cites ${what}`. */
  what: string;
}

export const CITATIONS: readonly CitationShape[] = [
  { pattern: /\bissues?\s+#?\d+/i, what: 'an issue number' },
  { pattern: /(^|[\s(])#\d+\b/, what: 'an issue number' },
  { pattern: /\bthe spec\b|\bspec:/i, what: '"the spec"' },
  { pattern: /\bdesign:|(^|[^/\w])design\.md\b/i, what: 'the design document' },
  { pattern: /\bthe brief\b|\bbrief:/i, what: 'the task brief' },
  { pattern: /\bstyle rule \d+|(^|[^/\w])style\.md\b/i, what: 'the style guide' },
  { pattern: /\.\.\/shared\b|\/work\/shared\b/, what: 'a file outside the repository' },
];

/** What `text` cites, one entry per matching shape, in the order of {@link CITATIONS}. */
export function citationsIn(text: string): string[] {
  return CITATIONS.filter(({ pattern }) => pattern.test(text)).map(({ what }) => what);
}
