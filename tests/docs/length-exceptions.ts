/**
 * The list of files and functions allowed past the length limits, read from a table in
 * CONTRIBUTING.md, and the comparison of that list with what is long now. Every row carries a reason,
 * and the comparison fails both ways: something long that is not listed, and a row whose file or
 * function is no longer long (or gone), so the list stays true as the code changes.
 */

export interface LengthException {
  file: string;
  /** The function's name as `functionLengths` gives it; undefined for a row about the whole file. */
  name: string | undefined;
  reason: string;
}

/** Something past its limit: a file, or one function of a file. */
export interface LongCode {
  file: string;
  name: string | undefined;
  lines: number;
}

export const EXCEPTIONS_HEADING = 'Long files and functions';

/**
 * The rows of the table in the `## Long files and functions` section of `markdown`: columns file,
 * function (empty for the whole file) and reason, code spans unwrapped. A section that is missing or a
 * row that is malformed throws, naming the line, since a list that cannot be read excuses nothing.
 */
export function parseLengthExceptions(markdown: string): LengthException[] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((line) => line.trim() === `## ${EXCEPTIONS_HEADING}`);
  if (start === -1) throw new Error(`no "## ${EXCEPTIONS_HEADING}" section`);
  const exceptions: LengthException[] = [];
  let header = true;
  for (let index = start + 1; index < lines.length && !lines[index]!.startsWith('## '); index++) {
    const line = lines[index]!.trim();
    if (!line.startsWith('|')) continue;
    const cells = line
      .slice(1, line.endsWith('|') ? -1 : undefined)
      .split('|')
      .map((cell) => cell.trim().replace(/^`(.*)`$/, '$1'));
    if (header) {
      if (cells.join('|') !== 'file|function|why it stays long') {
        throw new Error(`line ${index + 1}: the table's columns must be file | function | why it stays long`);
      }
      header = false;
      continue;
    }
    if (cells.every((cell) => /^:?-+:?$/.test(cell))) continue;
    const [file, name, reason] = cells;
    if (cells.length !== 3 || !file || !reason) {
      throw new Error(`line ${index + 1}: a row needs a file and a reason: ${line}`);
    }
    exceptions.push({ file, name: name || undefined, reason });
  }
  return exceptions;
}

/** Human-readable name of a file or function row. */
function describe(code: { file: string; name: string | undefined }): string {
  return code.name === undefined ? code.file : `${code.file} ${code.name}`;
}

/**
 * One message per disagreement between what is long and what is listed: an unlisted long file or
 * function, a listed one that is no longer long, and a row listed twice.
 */
export function lengthProblems(
  long: readonly LongCode[],
  exceptions: readonly LengthException[],
  limits: { fileLines: number; functionLines: number },
): string[] {
  const key = (code: { file: string; name: string | undefined }) => `${code.file}\0${code.name ?? ''}`;
  const listed = new Map<string, LengthException>();
  const problems: string[] = [];
  for (const exception of exceptions) {
    if (listed.has(key(exception))) problems.push(`${describe(exception)} is listed twice`);
    listed.set(key(exception), exception);
  }
  const longKeys = new Set(long.map(key));
  for (const code of long) {
    if (listed.has(key(code))) continue;
    const limit = code.name === undefined ? limits.fileLines : limits.functionLines;
    problems.push(
      `${describe(code)} has ${code.lines} lines (limit ${limit}): split it by concept, or list it ` +
        `with a reason under "${EXCEPTIONS_HEADING}" in CONTRIBUTING.md`,
    );
  }
  for (const exception of listed.values()) {
    if (longKeys.has(key(exception))) continue;
    problems.push(
      `${describe(exception)} is listed under "${EXCEPTIONS_HEADING}" but is no longer long: remove its row`,
    );
  }
  return problems;
}
