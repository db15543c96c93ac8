/**
 * The layer order of the code, read from the one place it is written down: the table under
 * "Layers, bottom to top" in `docs/architecture.md`. The page is the truth the layer check enforces, so
 * what a contributor reads is what the checks enforce.
 *
 * Guarantees:
 * - The table is parsed strictly: a missing section or column, a row whose number, folder or
 *   "imports from" cell does not follow the grammar, a folder claimed by two rows, or a row that declares
 *   an import from its own or a higher number is a `LayerTableError` naming the row and what was expected.
 *   The check never runs on a table it half understood.
 * - "imports from" is `—` (nothing), or a comma-separated list of items, each `everything below`, a
 *   number `N` or a range `N–M`, optionally followed by `(types only)`.
 * - A file belongs to the row with the longest matching entry: an entry ending in `/` is a folder and
 *   holds everything under it not held by a longer entry; any other entry is one file.
 */

export const LAYER_SECTION_HEADING = 'Layers, bottom to top';

export interface LayerPermission {
  /** The layer number that may be imported. */
  layer: number;
  typesOnly: boolean;
}

export interface Layer {
  number: number;
  name: string;
  /** Folder entries end in `/`; other entries name one file. Relative to the repository root. */
  entries: string[];
  /** The layers below this one it may import from; within its own row everything is allowed. */
  mayImport: LayerPermission[];
  /** The "imports from" cell as written, quoted back in messages. */
  importsFromText: string;
}

export class LayerTableError extends Error {
  override readonly name = 'LayerTableError';
}

const REQUIRED_COLUMNS = ['#', 'layer', 'folder', 'imports from'] as const;

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim());
}

/** The table's lines: the first run of `|` lines after the section heading. */
function tableLines(markdown: string, source: string): string[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === `## ${LAYER_SECTION_HEADING}`);
  if (start === -1) {
    throw new LayerTableError(`${source}: no section "## ${LAYER_SECTION_HEADING}" with the layer table.`);
  }
  const table: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim().startsWith('|')) table.push(line);
    else if (table.length > 0 || line.startsWith('#')) break;
  }
  if (table.length < 3) {
    throw new LayerTableError(
      `${source}: the section "${LAYER_SECTION_HEADING}" has no table with a header and at least one row.`,
    );
  }
  return table;
}

function parseEntries(cell: string, where: string): string[] {
  const entries = [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
  if (entries.length === 0) {
    throw new LayerTableError(`${where}: the folder cell names no \`path\`; got "${cell}".`);
  }
  for (const entry of entries) {
    if (!/^(src|web)\/([\w.-]+\/)*([\w.-]+\.\w+)?$/.test(entry) || entry.includes('..')) {
      throw new LayerTableError(
        `${where}: a folder entry must be a path under src/ or web/, a folder ending in "/" or a file; got "${entry}".`,
      );
    }
  }
  return entries;
}

function parseImportsFrom(
  cell: string,
  own: number,
  numbers: ReadonlySet<number>,
  where: string,
): LayerPermission[] {
  if (cell === '—' || cell === '-') return [];
  const permissions: LayerPermission[] = [];
  for (const rawItem of cell.split(',')) {
    const item = rawItem.trim();
    const match = /^(everything below|(\d+)(?:\s*[–-]\s*(\d+))?)(\s+\(types only\))?$/.exec(item);
    if (!match) {
      throw new LayerTableError(
        `${where}: an "imports from" item must be "everything below", a number or a range "N–M", optionally followed by "(types only)"; got "${item}".`,
      );
    }
    const typesOnly = match[4] !== undefined;
    if (match[1] === 'everything below') {
      for (const layer of [...numbers].sort((a, b) => a - b)) {
        if (layer < own) permissions.push({ layer, typesOnly });
      }
      continue;
    }
    const from = Number(match[2]);
    const to = match[3] === undefined ? from : Number(match[3]);
    if (to < from) throw new LayerTableError(`${where}: the range "${item}" runs backwards.`);
    if (to >= own) {
      throw new LayerTableError(
        `${where}: a layer may import only from lower numbers than its own (${own}); got "${item}".`,
      );
    }
    for (let layer = from; layer <= to; layer += 1) {
      if (!numbers.has(layer))
        throw new LayerTableError(`${where}: "${item}" names layer ${layer}, which no row has.`);
      permissions.push({ layer, typesOnly });
    }
  }
  return permissions;
}

/** Parses the layer table of `markdown`; `source` names the page in error messages. */
export function parseLayerTable(markdown: string, source: string): Layer[] {
  const [header, separator, ...rows] = tableLines(markdown, source);
  const columns = cells(header as string);
  const index = new Map(REQUIRED_COLUMNS.map((name) => [name, columns.indexOf(name)]));
  for (const [name, position] of index) {
    if (position === -1) {
      throw new LayerTableError(
        `${source}: the layer table has no column "${name}"; its columns are ${columns.map((c) => `"${c}"`).join(', ')}.`,
      );
    }
  }
  if (!/^[\s|:-]+$/.test(separator as string)) {
    throw new LayerTableError(`${source}: the layer table's second line is not a header separator.`);
  }
  const column = (row: string[], name: (typeof REQUIRED_COLUMNS)[number]) =>
    row[index.get(name) as number] ?? '';

  const parsedRows = rows.map((line, position) => {
    const row = cells(line);
    const where = `${source}, layer table row ${position + 1}`;
    const numberText = column(row, '#');
    if (!/^\d+$/.test(numberText)) {
      throw new LayerTableError(`${where}: "#" must be a whole number; got "${numberText}".`);
    }
    return { row, where, number: Number(numberText) };
  });
  const numbers = new Set(parsedRows.map((parsed) => parsed.number));
  const layers: Layer[] = parsedRows.map(({ row, where, number }) => {
    const importsFromText = column(row, 'imports from');
    return {
      number,
      name: column(row, 'layer'),
      entries: parseEntries(column(row, 'folder'), where),
      mayImport: parseImportsFrom(importsFromText, number, numbers, where),
      importsFromText,
    };
  });

  const owner = new Map<string, string>();
  for (const layer of layers) {
    for (const entry of layer.entries) {
      const other = owner.get(entry);
      if (other !== undefined) {
        throw new LayerTableError(`${source}: "${entry}" is listed by both "${other}" and "${layer.name}".`);
      }
      owner.set(entry, layer.name);
    }
  }
  return layers;
}

/** The layer holding `file` (a path relative to the repository root), or undefined when none does. */
export function layerOf(layers: readonly Layer[], file: string): Layer | undefined {
  let best: { layer: Layer; length: number } | undefined;
  for (const layer of layers) {
    for (const entry of layer.entries) {
      const matches = entry.endsWith('/') ? file.startsWith(entry) : file === entry;
      if (matches && (best === undefined || entry.length > best.length)) {
        best = { layer, length: entry.length };
      }
    }
  }
  return best?.layer;
}
