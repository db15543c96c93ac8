/**
 * The length of every function in a script, from the line of its first token (its doc comment not
 * counted) to the line of its last, so a check can name the ones that grew past a limit. Read with the
 * TypeScript compiler's own parser: declarations, function expressions, arrow functions, methods,
 * constructors and accessors all count, and a nested function counts both on its own and inside its
 * parent, whose lines it still is.
 *
 * A function is named by what a reader finds it under: its own name, the variable or property it is
 * assigned to, `Class.method` in a class, and `<anonymous> in <enclosing name>` for a callback. A name
 * that occurs twice in one file gets `#2`, `#3`… in order, so every entry is a distinct key.
 */
import ts from 'typescript';

export interface FunctionLength {
  name: string;
  /** 1-based line of the function's first token. */
  line: number;
  lines: number;
}

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.FunctionExpression
  | ts.ArrowFunction
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.AccessorDeclaration;

function isFunctionNode(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessor(node) ||
    ts.isSetAccessor(node)
  );
}

/** Every function in `text` with its length in lines, in source order. */
export function functionLengths(text: string): FunctionLength[] {
  const file = ts.createSourceFile('source.ts', text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const lineOf = (offset: number) => file.getLineAndCharacterOfPosition(offset).line + 1;
  const found: FunctionLength[] = [];
  const seen = new Map<string, number>();
  const visit = (node: ts.Node, enclosing: string | undefined): void => {
    let inside = enclosing;
    if (isFunctionNode(node)) {
      const own = ownName(node, file);
      const base = own ?? `<anonymous> in ${enclosing ?? 'the module'}`;
      const count = (seen.get(base) ?? 0) + 1;
      seen.set(base, count);
      const name = count === 1 ? base : `${base} #${count}`;
      const line = lineOf(node.getStart(file));
      found.push({ name, line, lines: lineOf(node.getEnd()) - line + 1 });
      inside = own ?? enclosing;
    }
    ts.forEachChild(node, (child) => visit(child, inside));
  };
  visit(file, undefined);
  return found;
}

/** The name a reader finds `node` under, or undefined for an anonymous callback. */
function ownName(node: FunctionNode, file: ts.SourceFile): string | undefined {
  if (ts.isConstructorDeclaration(node)) return `${classNameOf(node)}.constructor`;
  if (node.name !== undefined) {
    const name = node.name.getText(file);
    return ts.isClassLike(node.parent) ? `${classNameOf(node)}.${name}` : name;
  }
  const parent = node.parent;
  if (
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
  ) {
    const name = parent.name.getText(file);
    return ts.isPropertyDeclaration(parent) ? `${classNameOf(parent)}.${name}` : name;
  }
  return undefined;
}

/** The name of the class that `member` belongs to. */
function classNameOf(member: ts.Node): string {
  const owner = member.parent;
  return ts.isClassLike(owner) && owner.name !== undefined ? owner.name.text : '<class>';
}
