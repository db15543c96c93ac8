/**
 * The layer check fails on a planted runtime cycle, a planted type-only cycle, a planted upward import
 * and a run-time import where only types may be imported, each with its exact message; fails closed on
 * what it cannot check; and passes on the real tree.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { checkLayers } from '../../scripts/check-layers.ts';

const ROOT = resolve(import.meta.dir, '..', '..');
const FIXTURES = join(import.meta.dir, '__fixtures__', 'layers');
const SCRIPT = join(ROOT, 'scripts', 'check-layers.ts');

const temporaryRoots: string[] = [];
afterAll(() => {
  for (const root of temporaryRoots) rmSync(root, { recursive: true, force: true });
});

function writeTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'mango-layers-'));
  temporaryRoots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const ONE_LAYER_PAGE = [
  '# Architecture',
  '',
  '## Layers, bottom to top',
  '',
  '| #   | layer | folder      | holds | imports from |',
  '| --- | ----- | ----------- | ----- | ------------ |',
  '| 1   | base  | `src/base/` | all   | —            |',
  '',
].join('\n');

describe('checkLayers on the planted fixtures', () => {
  const cases: { fixture: string; problems: string[] }[] = [
    {
      fixture: 'runtime-cycle',
      problems: ['import cycle: src/base/ping.ts → src/base/pong.ts → src/base/ping.ts'],
    },
    {
      fixture: 'type-only-cycle',
      problems: ['type-only import cycle: src/base/area.ts → src/base/shape.ts → src/base/area.ts'],
    },
    {
      fixture: 'upward-import',
      problems: [
        'upward import: src/core/clock.ts (layer 1 core) imports src/app/greeting.ts (layer 2 app); core imports from no other layer',
      ],
    },
    {
      fixture: 'web-runtime-import',
      problems: [
        'run-time import where only types may be imported: web/main.ts (layer 2 browser app) imports src/core/limits.ts (layer 1 core); browser app may import from: everything below (types only)',
      ],
    },
  ];
  for (const { fixture, problems } of cases) {
    test(fixture, () => {
      expect(checkLayers(join(FIXTURES, fixture)).problems).toEqual(problems);
    });
  }
});

describe('checkLayers fails closed', () => {
  test('a file that no layer holds', () => {
    const root = writeTree({
      'docs/architecture.md': ONE_LAYER_PAGE,
      'src/base/a.ts': 'export const a = 1;\n',
      'src/stray/b.ts': 'export const b = 2;\n',
    });
    expect(checkLayers(root).problems).toEqual([
      'src/stray/b.ts is in no layer of the table in docs/architecture.md; add its folder to a row.',
    ]);
  });

  test('a relative import that resolves to no file, and one that leaves the checked folders', () => {
    const root = writeTree({
      'docs/architecture.md': ONE_LAYER_PAGE,
      'src/base/a.ts': "import { gone } from './gone.ts';\nimport { helper } from '../../tools/helper.ts';\n",
      'tools/helper.ts': 'export const helper = 1;\n',
    });
    expect(checkLayers(root).problems).toEqual([
      'src/base/a.ts: the import "../../tools/helper.ts" resolves to tools/helper.ts, outside src and web.',
      'src/base/a.ts: the import "./gone.ts" resolves to no file.',
    ]);
  });

  test('a dynamic import whose specifier is computed', () => {
    const root = writeTree({
      'docs/architecture.md': ONE_LAYER_PAGE,
      'src/base/a.ts': "const name = './b.ts';\nexport const load = () => import(name);\n",
    });
    expect(checkLayers(root).problems).toEqual([
      'src/base/a.ts:2: a dynamic import needs a string literal specifier for the layer check to follow it; got `import(name)`.',
    ]);
  });

  test('no architecture page', () => {
    const root = writeTree({ 'src/base/a.ts': 'export const a = 1;\n' });
    const { problems } = checkLayers(root);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toStartWith('docs/architecture.md cannot be read: ENOENT');
  });

  test('a table the check cannot read', () => {
    const root = writeTree({
      'docs/architecture.md': ONE_LAYER_PAGE.replace('| —            |', '| 1 and 2      |'),
      'src/base/a.ts': 'export const a = 1;\n',
    });
    expect(checkLayers(root).problems).toEqual([
      'docs/architecture.md, layer table row 1: an "imports from" item must be "everything below", a number or a range "N–M", optionally followed by "(types only)"; got "1 and 2".',
    ]);
  });

  test('imports of packages, built-in modules and JSON data are outside the graph', () => {
    const root = writeTree({
      'docs/architecture.md': ONE_LAYER_PAGE,
      'package.json': '{"version": "1.0.0"}\n',
      'src/base/a.ts': [
        "import { join } from 'node:path';",
        "import ts from 'typescript';",
        "import packageJson from '../../package.json';",
        'export const a = [join, ts, packageJson];',
        '',
      ].join('\n'),
    });
    expect(checkLayers(root)).toEqual({ problems: [], files: 1, imports: 0 });
  });
});

describe('the real tree', () => {
  test('has no cycle and no import against docs/architecture.md', () => {
    const result = checkLayers(ROOT);
    expect(result.problems).toEqual([]);
    const sources = ['src', 'web'].flatMap((folder) => [
      ...new Bun.Glob(`${folder}/**/*.{ts,tsx,mts,cts,js,mjs,cjs}`).scanSync({ cwd: ROOT }),
    ]);
    expect(result.files).toBe(sources.filter((file) => !file.endsWith('.d.ts')).length);
  }, 60_000);
});

describe('the script', () => {
  const run = (root: string) => {
    const child = Bun.spawnSync([process.execPath, SCRIPT, root], { stdout: 'pipe', stderr: 'pipe' });
    return { exitCode: child.exitCode, stdout: child.stdout.toString(), stderr: child.stderr.toString() };
  };

  test('prints each problem and exits 1', () => {
    expect(run(join(FIXTURES, 'runtime-cycle'))).toEqual({
      exitCode: 1,
      stdout: '',
      stderr:
        'import cycle: src/base/ping.ts → src/base/pong.ts → src/base/ping.ts\n' +
        'layer check: 1 problem(s); the layer order is in docs/architecture.md.\n',
    });
  }, 60_000);

  test('passes the real tree with one summary line', () => {
    const { files, imports } = checkLayers(ROOT);
    expect(run(ROOT)).toEqual({
      exitCode: 0,
      stdout: `layer check: ${files} files, ${imports} imports, no cycle and no import against docs/architecture.md.\n`,
      stderr: '',
    });
  }, 60_000);
});
