/**
 * The tool table of `docs/tools.md`, generated from the advertised-schema snapshot, which is itself
 * captured from the tool declarations: the page lists exactly the tools the snapshot records, with the
 * category, default and traits each declares. `advertised-schemas-capture.ts --write` rewrites both;
 * `tests/docs/tool-table.test.ts` fails when the page's table differs from the snapshot.
 */
import { join } from 'node:path';

export const TOOLS_PAGE = join(import.meta.dir, '..', '..', 'docs', 'tools.md');

/** The part of a snapshot entry the table reads. */
interface SnapshotEntry {
  settings: { category: string; enabledByDefault: boolean };
  traits: { readOnly: boolean; approvalDefault: string; confirmBeforeEnable: boolean } | null;
}

const HEADER = [
  'tool',
  'category',
  'on by default',
  'read-only',
  'asks before each call',
  'asks before enabling',
];
const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** One row per snapshot entry, in the snapshot's order; a tool without traits is refused by name. */
export function toolTableRows(snapshot: Readonly<Record<string, unknown>>): string[][] {
  return Object.entries(snapshot).map(([name, value]) => {
    const entry = value as SnapshotEntry;
    if (entry.traits === null) throw new Error(`The snapshot entry of tool "${name}" has no traits.`);
    return [
      `\`${name}\``,
      entry.settings.category,
      yesNo(entry.settings.enabledByDefault),
      yesNo(entry.traits.readOnly),
      yesNo(entry.traits.approvalDefault === 'always'),
      yesNo(entry.traits.confirmBeforeEnable),
    ];
  });
}

/** The table as markdown, columns padded to equal width. */
export function renderToolTable(snapshot: Readonly<Record<string, unknown>>): string {
  const rows = toolTableRows(snapshot);
  const widths = HEADER.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  return [line(HEADER), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/** Where the page's table sits: the first run of `|` lines after the page's title. */
function locateTable(markdown: string): { start: number; end: number } {
  const start = markdown.indexOf('\n| tool ');
  if (start < 0) throw new Error('docs/tools.md has no table whose first column is "tool".');
  let end = start + 1;
  while (markdown.startsWith('|', end)) {
    const next = markdown.indexOf('\n', end);
    end = next < 0 ? markdown.length : next + 1;
  }
  return { start: start + 1, end };
}

/** The tool names of the page's table, in order. */
export function readDocumentedTools(markdown: string): string[] {
  const table = locateTable(markdown);
  return markdown
    .slice(table.start, table.end)
    .trimEnd()
    .split('\n')
    .slice(2)
    .map((row) => (row.split('|')[1] ?? '').trim().replace(/^`|`$/g, ''));
}

/** `markdown` with its tool table replaced by the one generated from `snapshot`. */
export function withGeneratedToolTable(
  markdown: string,
  snapshot: Readonly<Record<string, unknown>>,
): string {
  const table = locateTable(markdown);
  return `${markdown.slice(0, table.start)}${renderToolTable(snapshot)}\n${markdown.slice(table.end)}`;
}
