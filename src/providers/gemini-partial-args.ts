/**
 * Builds a function call's arguments object from the `partialArgs` Gemini streams when function-call
 * arguments are streamed (Vertex AI `streamFunctionCallArguments`): each piece names a JSON path
 * (`$.location`, `$.filter.tags[0]`, `$['odd key']`) and a value; string pieces marked `willContinue`
 * are continued by the next piece for the same path, so string values are concatenated. A path this
 * module cannot read is reported, never guessed at: the call is then answered as invalid arguments.
 */
import type { PartialArg } from '@google/genai';

type Container = Record<string, unknown> | unknown[];

/** The keys of a JSON path, or `undefined` when the path is not one this reader understands. */
export function parseJsonPath(path: string): (string | number)[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const keys: (string | number)[] = [];
  const pattern = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;
  pattern.lastIndex = 1;
  while (pattern.lastIndex < path.length) {
    const match = pattern.exec(path);
    if (!match) return undefined;
    if (match[1] !== undefined) keys.push(match[1]);
    else if (match[2] !== undefined) keys.push(Number(match[2]));
    else keys.push((match[3] ?? match[4] ?? '').replace(/\\(.)/g, '$1'));
  }
  return keys;
}

function pieceValue(piece: PartialArg): { value: unknown } | undefined {
  if (piece.stringValue !== undefined) return { value: piece.stringValue };
  if (piece.numberValue !== undefined) return { value: piece.numberValue };
  if (piece.boolValue !== undefined) return { value: piece.boolValue };
  if (piece.nullValue !== undefined) return { value: null };
  return undefined;
}

/** Accumulates one call's streamed arguments. */
export class PartialArguments {
  readonly args: Record<string, unknown> = {};
  /** The first piece that could not be applied, as a one-line description. */
  problem: string | undefined;

  apply(piece: PartialArg): void {
    const keys = parseJsonPath(piece.jsonPath ?? '');
    const value = pieceValue(piece);
    if (!keys || keys.length === 0 || !value) {
      this.problem ??= `Unreadable streamed argument at path ${JSON.stringify(piece.jsonPath ?? '')}.`;
      return;
    }
    let container: Container = this.args;
    for (const [position, key] of keys.entries()) {
      const last = position === keys.length - 1;
      const existing = (container as Record<string | number, unknown>)[key];
      if (last) {
        (container as Record<string | number, unknown>)[key] =
          typeof existing === 'string' && typeof value.value === 'string'
            ? existing + value.value
            : value.value;
        return;
      }
      if (typeof existing === 'object' && existing !== null) {
        container = existing as Container;
      } else {
        const created: Container = typeof keys[position + 1] === 'number' ? [] : {};
        (container as Record<string | number, unknown>)[key] = created;
        container = created;
      }
    }
  }
}
