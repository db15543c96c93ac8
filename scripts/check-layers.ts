/**
 * The layer check of `npm run check`: no import cycle among the files of `src/` and `web/` (type-only
 * imports included, since they tie two files together as much as any), and no import against the layer
 * order of `docs/architecture.md` ([architecture](../docs/architecture.md)).
 *
 * Guarantees:
 * - `checkLayers(root)` returns every problem as one line, sorted, and an empty list only when the whole
 *   tree was read and checked: an unreadable layer table, an import it cannot follow or a file that no
 *   layer holds is a problem too, so the check fails closed.
 * - A cycle's line names its files in import order, back to the first; a layer line names the importing
 *   file, the imported file, both layers and what the importing layer may import, as the table says it.
 * - Only `src/config/` reads `process.env` (environment-reads.ts): a read anywhere else in `src/` is a
 *   problem line naming the file and line.
 * - Run as a script (`bun scripts/check-layers.ts [root]`) it prints the problems and exits 1, or prints
 *   one summary line and exits 0.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findEnvironmentReads } from './layers/environment-reads.ts';
import { findImportCycles } from './layers/import-cycles.ts';
import { readImportGraph } from './layers/import-graph.ts';
import { type Layer, LayerTableError, layerOf, parseLayerTable } from './layers/layer-table.ts';

export const ARCHITECTURE_PAGE = 'docs/architecture.md';
export const CHECKED_FOLDERS = ['src', 'web'] as const;

export interface LayerCheckResult {
  problems: string[];
  files: number;
  imports: number;
}

const describe = (layer: Layer) => `layer ${layer.number} ${layer.name}`;

function importProblem(from: string, fromLayer: Layer, to: string, toLayer: Layer, typeOnly: boolean) {
  if (fromLayer === toLayer) return undefined;
  const permission = fromLayer.mayImport.find((allowed) => allowed.layer === toLayer.number);
  if (permission !== undefined && (typeOnly || !permission.typesOnly)) return undefined;
  const allowed =
    fromLayer.mayImport.length === 0
      ? `${fromLayer.name} imports from no other layer`
      : `${fromLayer.name} may import from: ${fromLayer.importsFromText}`;
  if (permission !== undefined) {
    return `run-time import where only types may be imported: ${from} (${describe(fromLayer)}) imports ${to} (${describe(toLayer)}); ${allowed}`;
  }
  const kind = toLayer.number >= fromLayer.number ? 'upward import' : 'import outside the layer order';
  return `${kind}: ${from} (${describe(fromLayer)}) imports ${to} (${describe(toLayer)}); ${allowed}`;
}

/** Checks the tree at `root`; see the module comment for what an empty problem list promises. */
export function checkLayers(root: string): LayerCheckResult {
  let layers: Layer[];
  try {
    layers = parseLayerTable(readFileSync(join(root, ARCHITECTURE_PAGE), 'utf8'), ARCHITECTURE_PAGE);
  } catch (error) {
    if (error instanceof LayerTableError) return { problems: [error.message], files: 0, imports: 0 };
    const reason = error instanceof Error ? error.message : String(error);
    return { problems: [`${ARCHITECTURE_PAGE} cannot be read: ${reason}`], files: 0, imports: 0 };
  }

  const graph = readImportGraph(root, CHECKED_FOLDERS);
  const problems = [...graph.problems];
  for (const file of graph.files) {
    if (layerOf(layers, file) === undefined) {
      problems.push(`${file} is in no layer of the table in ${ARCHITECTURE_PAGE}; add its folder to a row.`);
    }
  }
  for (const edge of graph.edges) {
    const fromLayer = layerOf(layers, edge.from);
    const toLayer = layerOf(layers, edge.to);
    if (fromLayer === undefined || toLayer === undefined) continue;
    const problem = importProblem(edge.from, fromLayer, edge.to, toLayer, edge.typeOnly);
    if (problem !== undefined) problems.push(problem);
  }
  for (const cycle of findImportCycles(graph.files, graph.edges)) {
    const path = [...cycle.files, cycle.files[0]].join(' → ');
    const tangle =
      cycle.componentSize > cycle.files.length
        ? ` (one of ${cycle.componentSize} files that import each other)`
        : '';
    problems.push(`${cycle.typeOnly ? 'type-only import cycle' : 'import cycle'}: ${path}${tangle}`);
  }
  problems.push(...findEnvironmentReads(graph.files, (file) => readFileSync(join(root, file), 'utf8')));
  return { problems: problems.sort(), files: graph.files.length, imports: graph.edges.length };
}

if (import.meta.main) {
  const root = resolve(process.argv[2] ?? join(import.meta.dir, '..'));
  const result = checkLayers(root);
  if (result.problems.length > 0) {
    for (const problem of result.problems) console.error(problem);
    console.error(
      `layer check: ${result.problems.length} problem(s); the layer order is in ${ARCHITECTURE_PAGE}.`,
    );
    process.exit(1);
  }
  console.log(
    `layer check: ${result.files} files, ${result.imports} imports, no cycle and no import against ${ARCHITECTURE_PAGE}.`,
  );
}
