/**
 * `src/contracts/` holds types and constant tables only: every statement of its files is an interface,
 * a type alias, a type-only import of a sibling contract, or an exported `const` whose value is a
 * literal table (strings, numbers, booleans, arrays and objects of them). A function, class, enum,
 * computed value or import of anything else would make every layer that speaks a contract depend on
 * behaviour the layer table does not show (docs/architecture.md, "What the order means"). The checker
 * is tried on planted sources first, so the test can fail.
 */
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const CONTRACTS = resolve(import.meta.dir, '..', '..', 'src', 'contracts');

function isLiteralTable(node: ts.Expression): boolean {
  if (ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isParenthesizedExpression(node)) {
    return isLiteralTable(node.expression);
  }
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isNumericLiteral(node)) {
    return true;
  }
  if (node.kind === ts.SyntaxKind.TrueKeyword || node.kind === ts.SyntaxKind.FalseKeyword) return true;
  if (ts.isArrayLiteralExpression(node)) return node.elements.every(isLiteralTable);
  if (ts.isObjectLiteralExpression(node)) {
    return node.properties.every(
      (property) =>
        ts.isPropertyAssignment(property) &&
        !ts.isComputedPropertyName(property.name) &&
        isLiteralTable(property.initializer),
    );
  }
  return false;
}

function isTypeOnlyImport(statement: ts.ImportDeclaration): boolean {
  const clause = statement.importClause;
  if (clause === undefined) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return (
    clause.name === undefined &&
    bindings !== undefined &&
    ts.isNamedImports(bindings) &&
    bindings.elements.every((element) => element.isTypeOnly)
  );
}

/** One line per statement of `source` that is not a type or a constant table, with its line number. */
function behaviourIn(file: string, source: string): string[] {
  const parsed = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const problems: string[] = [];
  for (const statement of parsed.statements) {
    const line = parsed.getLineAndCharacterOfPosition(statement.getStart(parsed)).line + 1;
    if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) continue;
    if (ts.isImportDeclaration(statement)) {
      const from = (statement.moduleSpecifier as ts.StringLiteral).text;
      if (isTypeOnlyImport(statement) && /^\.\/[\w-]+\.ts$/.test(from)) continue;
      problems.push(
        `${file}:${line}: imports "${from}"; a contract imports only types of a sibling contract`,
      );
      continue;
    }
    if (ts.isVariableStatement(statement)) {
      const exported = statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false;
      const constant = (statement.declarationList.flags & ts.NodeFlags.Const) !== 0;
      const tables = statement.declarationList.declarations.every(
        (declaration) => declaration.initializer !== undefined && isLiteralTable(declaration.initializer),
      );
      if (exported && constant && tables) continue;
      problems.push(`${file}:${line}: a variable that is not an exported const of literal values`);
      continue;
    }
    problems.push(`${file}:${line}: ${ts.SyntaxKind[statement.kind]} is behaviour, not a type or table`);
  }
  return problems;
}

describe('the contracts layer', () => {
  test('the checker accepts types, sibling type imports and literal tables', () => {
    const source = [
      "import type { A } from './a.ts';",
      "import { type B } from './b.ts';",
      'export interface C { a: A; b: B }',
      "export type D = 'x' | 'y';",
      "export const DS: readonly D[] = ['x', 'y'];",
      "export const VIEWS = ['json', { name: 'n', on: true, at: [1, 2] }] as const;",
    ].join('\n');
    expect(behaviourIn('planted.ts', source)).toEqual([]);
  });

  test('the checker names every kind of behaviour and foreign import', () => {
    const source = [
      "import { A } from './a.ts';",
      "import type { T } from '../tools/types.ts';",
      "import type { S } from 'some-package';",
      'export function f() {}',
      'export class K {}',
      'export enum E { A }',
      'export const N = Date.now();',
      'const hidden = 1;',
      "export let open = 'x';",
      "export { f as g } from './f.ts';",
      "export const M = { [Symbol.iterator]: 'x' };",
    ].join('\n');
    expect(behaviourIn('planted.ts', source)).toEqual([
      'planted.ts:1: imports "./a.ts"; a contract imports only types of a sibling contract',
      'planted.ts:2: imports "../tools/types.ts"; a contract imports only types of a sibling contract',
      'planted.ts:3: imports "some-package"; a contract imports only types of a sibling contract',
      'planted.ts:4: FunctionDeclaration is behaviour, not a type or table',
      'planted.ts:5: ClassDeclaration is behaviour, not a type or table',
      'planted.ts:6: EnumDeclaration is behaviour, not a type or table',
      'planted.ts:7: a variable that is not an exported const of literal values',
      'planted.ts:8: a variable that is not an exported const of literal values',
      'planted.ts:9: a variable that is not an exported const of literal values',
      'planted.ts:10: ExportDeclaration is behaviour, not a type or table',
      'planted.ts:11: a variable that is not an exported const of literal values',
    ]);
  });

  test('every file of src/contracts/ holds types and constant tables only', () => {
    const files = readdirSync(CONTRACTS).filter((name) => name.endsWith('.ts'));
    expect(files.length).toBeGreaterThanOrEqual(13);
    expect(files).toContain('turn-event.ts');
    const problems = files.flatMap((name) =>
      behaviourIn(`src/contracts/${name}`, readFileSync(join(CONTRACTS, name), 'utf8')),
    );
    expect(problems).toEqual([]);
  });
});
