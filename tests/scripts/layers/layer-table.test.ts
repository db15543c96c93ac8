import { describe, expect, test } from 'bun:test';
import { LayerTableError, layerOf, parseLayerTable } from '../../../scripts/layers/layer-table.ts';

function page(rows: string[], header = '| # | layer | folder | holds | imports from |'): string {
  return [
    '# Architecture',
    '',
    '## Layers, bottom to top',
    '',
    header,
    '| - | - | - | - | - |',
    ...rows,
    '',
  ].join('\n');
}

const SOURCE = 'docs/architecture.md';

describe('parseLayerTable', () => {
  test('reads numbers, names, entries and permissions', () => {
    const layers = parseLayerTable(
      page([
        '| 1 | config | `src/config.ts` | c | — |',
        '| 1 | users | `src/users/` | u | — |',
        '| 2 | core | `src/tools/` (files), `src/tools/access/` | t | 1 |',
        '| 3 | mechanics | `src/tools/fs/` | m | 2 |',
        '| 4 | providers | `src/providers/` | p | 2 (types only) |',
        '| 5 | top | `src/http/` | h | everything below |',
        '| 6 | browser | `web/` | w | 1–2, 4 (types only) |',
      ]),
      SOURCE,
    );
    expect(
      layers.map(({ number, name, entries, mayImport }) => ({
        number,
        name,
        entries,
        mayImport: mayImport.map((p) => `${p.layer}${p.typesOnly ? 't' : ''}`),
      })),
    ).toEqual([
      { number: 1, name: 'config', entries: ['src/config.ts'], mayImport: [] },
      { number: 1, name: 'users', entries: ['src/users/'], mayImport: [] },
      { number: 2, name: 'core', entries: ['src/tools/', 'src/tools/access/'], mayImport: ['1'] },
      { number: 3, name: 'mechanics', entries: ['src/tools/fs/'], mayImport: ['2'] },
      { number: 4, name: 'providers', entries: ['src/providers/'], mayImport: ['2t'] },
      { number: 5, name: 'top', entries: ['src/http/'], mayImport: ['1', '2', '3', '4'] },
      { number: 6, name: 'browser', entries: ['web/'], mayImport: ['1', '2', '4t'] },
    ]);
  });

  test('a file belongs to the longest entry that holds it', () => {
    const layers = parseLayerTable(
      page([
        '| 1 | config | `src/config.ts` | c | — |',
        '| 2 | core | `src/tools/` | t | 1 |',
        '| 3 | mechanics | `src/tools/fs/` | m | 2 |',
      ]),
      SOURCE,
    );
    expect(
      [
        'src/config.ts',
        'src/tools/types.ts',
        'src/tools/fs/grep/worker.ts',
        'src/config.tsx',
        'src/x.ts',
      ].map((file) => layerOf(layers, file)?.name),
    ).toEqual(['config', 'core', 'mechanics', undefined, undefined]);
  });

  const errors: { name: string; markdown: string; message: string }[] = [
    {
      name: 'no section',
      markdown: '# Architecture\n\nNo table here.\n',
      message: 'docs/architecture.md: no section "## Layers, bottom to top" with the layer table.',
    },
    {
      name: 'a section without rows',
      markdown: '## Layers, bottom to top\n\nSoon.\n\n## Next\n',
      message:
        'docs/architecture.md: the section "Layers, bottom to top" has no table with a header and at least one row.',
    },
    {
      name: 'a missing column',
      markdown: page(['| 1 | a | `src/a/` | x |'], '| # | layer | folder | holds |'),
      message:
        'docs/architecture.md: the layer table has no column "imports from"; its columns are "#", "layer", "folder", "holds".',
    },
    {
      name: 'a number that is not one',
      markdown: page(['| one | a | `src/a/` | x | — |']),
      message: 'docs/architecture.md, layer table row 1: "#" must be a whole number; got "one".',
    },
    {
      name: 'a row without a path',
      markdown: page(['| 1 | a | the a folder | x | — |']),
      message:
        'docs/architecture.md, layer table row 1: the folder cell names no `path`; got "the a folder".',
    },
    {
      name: 'a path outside src/ and web/',
      markdown: page(['| 1 | a | `tests/a/` | x | — |']),
      message:
        'docs/architecture.md, layer table row 1: a folder entry must be a path under src/ or web/, a folder ending in "/" or a file; got "tests/a/".',
    },
    {
      name: 'an import from its own number',
      markdown: page(['| 1 | a | `src/a/` | x | — |', '| 2 | b | `src/b/` | x | 1–2 |']),
      message:
        'docs/architecture.md, layer table row 2: a layer may import only from lower numbers than its own (2); got "1–2".',
    },
    {
      name: 'a range that runs backwards',
      markdown: page(['| 1 | a | `src/a/` | x | — |', '| 3 | b | `src/b/` | x | 2–1 |']),
      message: 'docs/architecture.md, layer table row 2: the range "2–1" runs backwards.',
    },
    {
      name: 'a number no row has',
      markdown: page(['| 1 | a | `src/a/` | x | — |', '| 3 | b | `src/b/` | x | 1–2 |']),
      message: 'docs/architecture.md, layer table row 2: "1–2" names layer 2, which no row has.',
    },
    {
      name: 'a folder in two rows',
      markdown: page(['| 1 | a | `src/a/` | x | — |', '| 2 | b | `src/a/` | x | 1 |']),
      message: 'docs/architecture.md: "src/a/" is listed by both "a" and "b".',
    },
    {
      name: 'prose in the imports cell',
      markdown: page(['| 1 | a | `src/a/` | x | — |', '| 2 | b | `src/b/` | x | 1; also `a/` |']),
      message:
        'docs/architecture.md, layer table row 2: an "imports from" item must be "everything below", a number or a range "N–M", optionally followed by "(types only)"; got "1; also `a/`".',
    },
  ];
  for (const { name, markdown, message } of errors) {
    test(`refuses ${name}`, () => {
      let caught: unknown;
      try {
        parseLayerTable(markdown, SOURCE);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(LayerTableError);
      expect((caught as Error).message).toBe(message);
    });
  }
});

describe('the table in docs/architecture.md', () => {
  test('parses, and holds the workspaces layer between the tool core and chat', async () => {
    const layers = parseLayerTable(await Bun.file(`${import.meta.dir}/../../../${SOURCE}`).text(), SOURCE);
    const byName = new Map(layers.map((layer) => [layer.name, layer]));
    const workspaces = byName.get('workspaces');
    expect(workspaces?.entries).toEqual(['src/workspaces/']);
    const core = byName.get('tool core')?.number as number;
    const chat = byName.get('chat')?.number as number;
    expect((workspaces?.number as number) > core && (workspaces?.number as number) < chat).toBe(true);
    for (const importer of ['chat', 'MCP', 'HTTP', 'server', 'command line']) {
      expect({
        importer,
        allowed: byName.get(importer)?.mayImport.some((p) => p.layer === workspaces?.number),
      }).toEqual({ importer, allowed: true });
    }
  });
});
