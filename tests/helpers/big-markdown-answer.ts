/**
 * The 200 KB markdown answer the browser tests stream in 2,000 deltas of exactly 100 characters: mostly
 * sentences with bold and inline code, a heading and a table every 50 pieces, a TypeScript code block
 * every 50 pieces (offset by 25), so every kind of incremental block is opened and closed many times.
 * Piece `i` contains `Sentence iiii` (four digits) unless it is a heading or code piece.
 */
export function bigMarkdownAnswerPieces(count = 2000): string[] {
  return Array.from({ length: count }, (_, index) => bigMarkdownAnswerPiece(index));
}

function bigMarkdownAnswerPiece(index: number): string {
  if (index % 50 === 0)
    return `\n\n## Section ${index / 50}\n\n| a | b |\n|---|---|\n| ${index} | x |\n\n`.padEnd(100, ' ');
  if (index % 50 === 25)
    return '\n\n```ts\nconst value = compute(1, 2, 3); // a highlighted line of code here ok\n```\n\n'.padEnd(
      100,
      ' ',
    );
  return `Sentence ${String(index).padStart(4, '0')} with **bold** and \`code\` words that stream in. `.padEnd(
    100,
    '.',
  );
}
