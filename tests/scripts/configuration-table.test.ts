import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import {
  OPERATING_MANUAL,
  readDocumentedVariables,
  renderConfigurationTable,
  withGeneratedTable,
} from '../../scripts/configuration-table.ts';
import { ENVIRONMENT_VARIABLES } from '../../src/config/environment-variables.ts';

const manual = readFileSync(OPERATING_MANUAL, 'utf8');

describe('the configuration table of docs/operating.md', () => {
  test('lists exactly the declared variables, in order, with their defaults', () => {
    expect(readDocumentedVariables(manual)).toEqual(
      Object.entries(ENVIRONMENT_VARIABLES).map(([name, declaration]) => ({
        name,
        defaultText: declaration.defaultText,
      })),
    );
  });

  test('is the table generated from the declarations (bun scripts/configuration-table.ts --write)', () => {
    expect(withGeneratedTable(manual)).toBe(manual);
  });

  test('a missing or changed row is seen', () => {
    const hostRow = manual.split('\n').find((line) => line.startsWith('| `HOST` '));
    expect(hostRow).toBeDefined();
    const without = manual.replace(`${hostRow}\n`, '');
    expect(readDocumentedVariables(without).map((row) => row.name)).not.toContain('HOST');
    expect(withGeneratedTable(without)).toBe(manual);
    const changed = manual.replace(hostRow ?? '', (hostRow ?? '').replace('`127.0.0.1`', '`0.0.0.0`  '));
    expect(readDocumentedVariables(changed)[0]).toEqual({ name: 'HOST', defaultText: '`0.0.0.0`' });
  });

  test('the rendered table has a header, a rule and one row per variable', () => {
    const lines = renderConfigurationTable().split('\n');
    expect(lines).toHaveLength(Object.keys(ENVIRONMENT_VARIABLES).length + 2);
    expect(lines[0]?.startsWith('| variable ')).toBe(true);
    expect(new Set(lines.map((line) => line.length)).size).toBe(1);
  });

  test('a manual without the section is refused with the reason', () => {
    expect(() => readDocumentedVariables('# Operating\n')).toThrow(
      'docs/operating.md has no table under "## Configuration".',
    );
  });
});
