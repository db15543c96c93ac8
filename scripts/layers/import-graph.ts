/**
 * The import graph of the repository's own code: every `import`, `export … from`, dynamic `import()`,
 * `require()` and `import('…')` type of each TypeScript or JavaScript file under the given folders,
 * resolved to a file the way the compiler resolves it.
 *
 * Guarantees:
 * - Each edge says whether it exists only for the type checker (`import type`, `export type`, an import
 *   whose every name is marked `type`, an `import('…')` type): such an edge disappears at run time but
 *   still ties the two files together, so the cycle check counts it and the layer check can allow it
 *   where a layer may import only types.
 * - Two imports of the same file from one file make one edge, a run-time one if either is.
 * - What the graph cannot follow is a problem, never skipped: a relative specifier that resolves to no
 *   file or to one outside the checked folders, or a dynamic import or `require` whose specifier is not
 *   a string literal.
 * - Imports of packages, built-in modules and data files (`package.json`) are outside the graph. Paths are relative to the root, with
 *   `/` separators, and everything is sorted, so the same tree always gives the same graph.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

export interface ImportGraph {
  files: string[];
  edges: ImportEdge[];
  /** Imports that could not be followed, as messages naming the file and the specifier. */
  problems: string[];
}

const SOURCE_FILE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

const COMPILER_OPTIONS: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  allowImportingTsExtensions: true,
  resolveJsonModule: true,
  allowJs: true,
  noEmit: true,
};

function listSourceFiles(root: string, folder: string): string[] {
  const files: string[] = [];
  const walk = (directory: string): void => {
    let names: string[];
    try {
      names = readdirSync(join(root, directory)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      if (name === 'node_modules') continue;
      const path = join(directory, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else if (SOURCE_FILE.test(name) && !name.endsWith('.d.ts')) files.push(path.split(sep).join('/'));
    }
  };
  walk(folder);
  return files;
}

interface Specifier {
  text: string;
  typeOnly: boolean;
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (clause === undefined) return false;
  if (clause.isTypeOnly) return true;
  if (clause.name !== undefined) return false;
  const bindings = clause.namedBindings;
  return (
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.length > 0 &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return (
    clause !== undefined &&
    ts.isNamedExports(clause) &&
    clause.elements.length > 0 &&
    clause.elements.every((element) => element.isTypeOnly)
  );
}

/** The specifiers `file` imports, and the problems of imports it cannot name statically. */
function readSpecifiers(file: string, text: string): { specifiers: Specifier[]; problems: string[] } {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const specifiers: Specifier[] = [];
  const problems: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push({ text: node.moduleSpecifier.text, typeOnly: isTypeOnlyImport(node) });
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      specifiers.push({ text: node.moduleSpecifier.text, typeOnly: isTypeOnlyExport(node) });
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      specifiers.push({ text: node.moduleReference.expression.text, typeOnly: node.isTypeOnly });
    } else if (ts.isImportTypeNode(node)) {
      const argument = node.argument;
      if (ts.isLiteralTypeNode(argument) && ts.isStringLiteral(argument.literal)) {
        specifiers.push({ text: argument.literal.text, typeOnly: true });
      }
    } else if (ts.isCallExpression(node)) {
      const isDynamicImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      if (isDynamicImport || isRequire) {
        const [argument] = node.arguments;
        if (argument !== undefined && ts.isStringLiteralLike(argument)) {
          specifiers.push({ text: argument.text, typeOnly: false });
        } else {
          const { line } = source.getLineAndCharacterOfPosition(node.getStart());
          problems.push(
            `${file}:${line + 1}: ${isRequire ? 'require' : 'a dynamic import'} needs a string literal specifier for the layer check to follow it; got \`${node.getText()}\`.`,
          );
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { specifiers, problems };
}

/** Reads the import graph of every source file under `folders` (relative to `root`). */
export function readImportGraph(root: string, folders: readonly string[]): ImportGraph {
  const files = folders.flatMap((folder) => listSourceFiles(root, folder)).sort();
  const known = new Set(files);
  const edges = new Map<string, ImportEdge>();
  const problems: string[] = [];
  const cache = ts.createModuleResolutionCache(root, (name) => name, COMPILER_OPTIONS);
  for (const file of files) {
    const absolute = join(root, file);
    const read = readSpecifiers(file, readFileSync(absolute, 'utf8'));
    problems.push(...read.problems);
    for (const specifier of read.specifiers) {
      const resolved = ts.resolveModuleName(specifier.text, absolute, COMPILER_OPTIONS, ts.sys, cache)
        .resolvedModule?.resolvedFileName;
      const target = resolved === undefined ? undefined : relative(root, resolved).split(sep).join('/');
      if (target === undefined || !known.has(target)) {
        // Packages, built-in modules and data files (JSON) import nothing of ours, so they can close no
        // cycle and break no layer; a relative path to code must land inside the checked folders.
        const isData = target !== undefined && !SOURCE_FILE.test(target);
        if (/^\.{0,2}\//.test(specifier.text) && !isData) {
          problems.push(
            target === undefined
              ? `${file}: the import "${specifier.text}" resolves to no file.`
              : `${file}: the import "${specifier.text}" resolves to ${target}, outside ${folders.join(' and ')}.`,
          );
        }
        continue;
      }
      const key = `${file}\n${target}`;
      const existing = edges.get(key);
      edges.set(key, {
        from: file,
        to: target,
        typeOnly: specifier.typeOnly && (existing === undefined || existing.typeOnly),
      });
    }
  }
  const sortedEdges = [...edges.values()].sort((a, b) =>
    a.from === b.from ? (a.to < b.to ? -1 : 1) : a.from < b.from ? -1 : 1,
  );
  return { files, edges: sortedEdges, problems };
}
