/**
 * The tool table of docs/tools.md is the one generated from the advertised-schema snapshot, which the
 * snapshot test holds to the tool declarations: the page cannot list a tool, a default or a trait that
 * the code does not declare.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { SNAPSHOT_FILE, UPDATE_COMMAND } from '../tools/advertised-schemas-capture.ts';
import {
  readDocumentedTools,
  TOOLS_PAGE,
  toolTableRows,
  withGeneratedToolTable,
} from '../tools/tool-table.ts';

const page = readFileSync(TOOLS_PAGE, 'utf8');
const snapshot = JSON.parse(readFileSync(SNAPSHOT_FILE, 'utf8')) as Record<string, unknown>;

describe('the tool table of docs/tools.md', () => {
  test('lists exactly the tools of the snapshot, in its order', () => {
    expect(readDocumentedTools(page)).toEqual(Object.keys(snapshot));
    expect(readDocumentedTools(page)).toContain('bash');
  });

  test(`is the table generated from the snapshot (${UPDATE_COMMAND})`, () => {
    expect(withGeneratedToolTable(page, snapshot)).toBe(page);
  });

  test('states each tool as the snapshot records it', () => {
    const rows = Object.fromEntries(toolTableRows(snapshot).map((row) => [row[0], row.slice(1)]));
    expect(rows['`bash`']).toEqual(['system', 'no', 'no', 'yes', 'yes']);
    expect(rows['`read_file`']).toEqual(['system', 'yes', 'yes', 'no', 'no']);
    expect(rows['`generate_image`']).toEqual(['image', 'yes', 'no', 'yes', 'no']);
  });

  test('a missing or changed row is seen', () => {
    const grepRow = page.split('\n').find((line) => line.startsWith('| `grep` '));
    expect(grepRow).toBeDefined();
    const without = page.replace(`${grepRow}\n`, '');
    expect(readDocumentedTools(without)).not.toContain('grep');
    expect(withGeneratedToolTable(without, snapshot)).toBe(page);
    const changed = page.replace(grepRow ?? '', (grepRow ?? '').replace('| yes       |', '| no        |'));
    expect(changed).not.toBe(page);
    expect(withGeneratedToolTable(changed, snapshot)).toBe(page);
  });

  test('a snapshot entry without traits is refused by name', () => {
    expect(() =>
      toolTableRows({ odd: { settings: { category: 'system', enabledByDefault: true }, traits: null } }),
    ).toThrow('The snapshot entry of tool "odd" has no traits.');
  });
});
