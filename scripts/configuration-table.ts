/**
 * The configuration table of `docs/operating.md`, generated from the declarations in
 * `src/config/environment-variables.ts`, so the manual lists exactly the variables the server reads,
 * with their defaults and meanings. `bun scripts/configuration-table.ts --write` rewrites the table in
 * place; a test fails when the manual's table differs from the declarations.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENVIRONMENT_VARIABLES } from '../src/config/environment-variables.ts';

export const OPERATING_MANUAL = join(import.meta.dir, '..', 'docs', 'operating.md');

const HEADER = ['variable', 'default', 'meaning'];

/** The table as markdown, columns padded to equal width. */
export function renderConfigurationTable(): string {
  const rows = Object.entries(ENVIRONMENT_VARIABLES).map(([name, declaration]) => [
    `\`${name}\``,
    declaration.defaultText,
    declaration.meaning,
  ]);
  const widths = HEADER.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(HEADER), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/** Where the manual's table sits: the first run of `|` lines after the `## Configuration` heading. */
function locateTable(markdown: string): { start: number; end: number } | undefined {
  const heading = markdown.indexOf('\n## Configuration\n');
  if (heading < 0) return undefined;
  const start = markdown.indexOf('\n|', heading);
  if (start < 0) return undefined;
  let end = start + 1;
  while (markdown.startsWith('|', end)) {
    const next = markdown.indexOf('\n', end);
    end = next < 0 ? markdown.length : next + 1;
  }
  return { start: start + 1, end };
}

/** Name and default of every row of the manual's table, in order. */
export function readDocumentedVariables(markdown: string): { name: string; defaultText: string }[] {
  const table = locateTable(markdown);
  if (table === undefined) throw new Error('docs/operating.md has no table under "## Configuration".');
  return markdown
    .slice(table.start, table.end)
    .trimEnd()
    .split('\n')
    .slice(2)
    .map((row) => {
      const cells = row.split(' | ').map((cell) => cell.replace(/^\|?\s*|\s*\|?$/g, ''));
      return { name: (cells[0] ?? '').replace(/^`|`$/g, ''), defaultText: cells[1] ?? '' };
    });
}

/** `markdown` with its configuration table replaced by the generated one. */
export function withGeneratedTable(markdown: string): string {
  const table = locateTable(markdown);
  if (table === undefined) throw new Error('docs/operating.md has no table under "## Configuration".');
  return `${markdown.slice(0, table.start)}${renderConfigurationTable()}\n${markdown.slice(table.end)}`;
}

if (import.meta.main) {
  const markdown = readFileSync(OPERATING_MANUAL, 'utf8');
  if (process.argv.includes('--write')) writeFileSync(OPERATING_MANUAL, withGeneratedTable(markdown));
  else console.log(renderConfigurationTable());
}
