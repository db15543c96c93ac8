import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readImportGraph } from '../../../scripts/layers/import-graph.ts';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function graphOf(files: Record<string, string>) {
  const root = mkdtempSync(join(tmpdir(), 'mango-import-graph-'));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return readImportGraph(root, ['src']);
}

const TARGET = { 'src/t.ts': 'export interface T { x: number }\nexport const t = 1;\nexport default t;\n' };

describe('readImportGraph: which imports exist only for the type checker', () => {
  const forms: { statement: string; typeOnly: boolean }[] = [
    { statement: "import type { T } from './t.ts';", typeOnly: true },
    { statement: "import { type T } from './t.ts';", typeOnly: true },
    { statement: "import { type T, t } from './t.ts';", typeOnly: false },
    { statement: "import { t } from './t.ts';", typeOnly: false },
    { statement: "import t from './t.ts';", typeOnly: false },
    { statement: "import type t from './t.ts';", typeOnly: true },
    { statement: "import * as all from './t.ts';", typeOnly: false },
    { statement: "import type * as all from './t.ts';", typeOnly: true },
    { statement: "import './t.ts';", typeOnly: false },
    { statement: "export type { T } from './t.ts';", typeOnly: true },
    { statement: "export { type T } from './t.ts';", typeOnly: true },
    { statement: "export { t } from './t.ts';", typeOnly: false },
    { statement: "export * from './t.ts';", typeOnly: false },
    { statement: "export type * from './t.ts';", typeOnly: true },
    { statement: "export const load = () => import('./t.ts');", typeOnly: false },
    { statement: "export const load = () => require('./t.ts');", typeOnly: false },
    { statement: "export type Loaded = typeof import('./t.ts');", typeOnly: true },
    { statement: "export type X = import('./t.ts').T;", typeOnly: true },
    { statement: "import type { T } from './t.ts';\nimport { t } from './t.ts';", typeOnly: false },
  ];
  for (const { statement, typeOnly } of forms) {
    test(statement, () => {
      expect(graphOf({ ...TARGET, 'src/a.ts': `${statement}\n` })).toEqual({
        files: ['src/a.ts', 'src/t.ts'],
        edges: [{ from: 'src/a.ts', to: 'src/t.ts', typeOnly }],
        problems: [],
      });
    });
  }
});

describe('readImportGraph: resolution', () => {
  test('resolves a folder to its index, a path without extension, and nested folders; sorted', () => {
    const graph = graphOf({
      'src/lib/index.ts': 'export const lib = 1;\n',
      'src/deep/er/b.ts': "export { lib } from '../../lib';\n",
      'src/a.ts': "import { lib } from './lib/index.ts';\nimport './deep/er/b';\nexport const a = lib;\n",
    });
    expect(graph.edges).toEqual([
      { from: 'src/a.ts', to: 'src/deep/er/b.ts', typeOnly: false },
      { from: 'src/a.ts', to: 'src/lib/index.ts', typeOnly: false },
      { from: 'src/deep/er/b.ts', to: 'src/lib/index.ts', typeOnly: false },
    ]);
    expect(graph.files).toEqual(['src/a.ts', 'src/deep/er/b.ts', 'src/lib/index.ts']);
  });

  test('a computed require is a problem with its line', () => {
    const graph = graphOf({ 'src/a.ts': "const name = './b.ts';\n\nexport const b = require(name);\n" });
    expect(graph.problems).toEqual([
      'src/a.ts:3: require needs a string literal specifier for the layer check to follow it; got `require(name)`.',
    ]);
  });

  test('declaration files are not sources of the graph', () => {
    const graph = graphOf({
      'src/a.d.ts': "import type { T } from './t.ts';\nexport type A = T;\n",
      ...TARGET,
    });
    expect(graph).toEqual({ files: ['src/t.ts'], edges: [], problems: [] });
  });
});
