/**
 * read_file: a file as line-numbered text (`cat -n` style) or as
 * its raw bytes in hex or base64. Read by the call's file operations (in the user's sandbox where the
 * server has one) through one descriptor, verified against the path policy after opening; the
 * ceiling bounds the bytes read, not the size stat claims; the whole-file sha256 is always recorded in the
 * chat's freshness ledger, which is what lets write_file and edit_file overwrite the file later.
 */

import { type Static, Type } from '@sinclair/typebox';
import { fileOperationsFor } from '../../sandbox/host-file-operations.ts';
import { getAccessPolicy } from '../access/access-policy.ts';
import { assertFilePathSyntax } from '../access/tool-path-syntax.ts';
import { defineTool } from '../define-tool.ts';
import { ToolArgumentError, ToolExecutionError } from '../errors.ts';
import { BINARY_PROBE_BYTES, looksBinary } from '../fs/binary-probe.ts';
import type { FileContent, ReadFileOutcome } from '../fs/file-operations.ts';
import { countLines, recordRead, sha256Hex } from '../fs/freshness.ts';
import { filePathParameter, PATH_ACCESS_SETTINGS } from '../fs/path-access-settings.ts';
import { cutLine, formatBytes, readWindowNotice } from '../output/cut-notices.ts';
import { registerTool } from '../registry.ts';
import { StringEnum } from '../tool-schema.ts';
import { readOnlyLocalTraits } from '../tool-traits.ts';
import type { ToolContext } from '../types.ts';

/** Ceiling of the text view. */
export const TEXT_VIEW_CEILING_BYTES = 10 * 1024 * 1024;
/** Ceiling of the hex and base64 views: the whole result reaches the model. */
export const BYTE_VIEW_CEILING_BYTES = 256 * 1024;
/** Bytes of numbered text one read returns at most. */
export const READ_WINDOW_CAP_BYTES = 256 * 1024;
/**
 * The result size read_file is designed to deliver whole: a hex view of a 256 KiB file is 512 KiB of
 * text, plus the other fields. Without it the chat loop's 100 KiB default would cut every byte view
 * over ~75 KiB, and a cut read never counts as an observation, so such a file could not be rewritten.
 */
export const READ_FILE_RESULT_BUDGET_BYTES = 600 * 1024;
export const DEFAULT_MAX_LINES = 2000;
export const MAX_MAX_LINES = 5000;

export const READ_FILE_VIEWS = ['text', 'hex', 'base64'] as const;
export type ReadFileView = (typeof READ_FILE_VIEWS)[number];

export interface ReadFileResult {
  content: string;
  path: string;
  size: number;
  sha256: string;
  totalLines: number;
  startLine: number;
  endLine: number;
  truncated: boolean;
  view?: 'hex' | 'base64';
}

/** `cat -n`: the line number right-aligned in six columns, a TAB, the line. */
export function numberLine(lineNumber: number, text: string): string {
  return `${String(lineNumber).padStart(6, ' ')}\t${text}`;
}

interface TextWindow {
  content: string;
  endLine: number;
  truncated: boolean;
}

/** Pure: the numbered window of `text` from `startLine`, under the line and byte caps. */
export function renderTextWindow(
  text: string,
  totalLines: number,
  startLine: number,
  maxLines: number,
  maxLinesGiven: boolean,
): TextWindow {
  const lines: string[] = [];
  let offset = 0;
  for (let line = 1; line < startLine; line += 1) offset = text.indexOf('\n', offset) + 1;
  const lastWanted = Math.min(totalLines, startLine + maxLines - 1);
  let bytes = 0;
  let linesCut = false;
  let byteCapReached = false;
  let endLine = startLine - 1;
  for (let line = startLine; line <= lastWanted; line += 1) {
    const newline = text.indexOf('\n', offset);
    let raw = newline === -1 ? text.slice(offset) : text.slice(offset, newline);
    offset = newline + 1;
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    const { text: shown, cut } = cutLine(raw);
    const numbered = numberLine(line, shown);
    const size = Buffer.byteLength(numbered) + 1;
    if (bytes + size > READ_WINDOW_CAP_BYTES && lines.length > 0) {
      byteCapReached = true;
      break;
    }
    linesCut ||= cut;
    bytes += size;
    lines.push(numbered);
    endLine = line;
  }
  // Stopping at the default maxLines before the end is truncation too: the model did not ask for a limit.
  const stoppedEarly = endLine < totalLines && (byteCapReached || !maxLinesGiven);
  const truncated = linesCut || stoppedEarly;
  let content = lines.join('\n');
  if (truncated) {
    content += readWindowNotice({
      startLine,
      endLine,
      totalLines,
      linesCut,
      byteCapReached,
      windowByteCap: READ_WINDOW_CAP_BYTES,
    });
  }
  return { content, endLine, truncated };
}

const parameters = Type.Object({
  path: filePathParameter(),
  startLine: Type.Optional(
    Type.Integer({ minimum: 1, description: 'First line to show (1-based, default 1). Text view only.' }),
  ),
  maxLines: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_MAX_LINES,
      description: `Most lines to show (default ${DEFAULT_MAX_LINES}, max ${MAX_MAX_LINES}). Text view only.`,
    }),
  ),
  view: Type.Optional(
    StringEnum(READ_FILE_VIEWS, {
      description: 'text (default), or hex / base64 for the raw bytes of the whole file.',
    }),
  ),
});

/** The file that was read, or the refusal of what was found instead, worded for the view. */
function fileOrRefusal(
  outcome: ReadFileOutcome,
  path: string,
  view: ReadFileView,
  ceiling: number,
): FileContent {
  if (outcome.kind === 'directory') {
    throw new ToolExecutionError(
      `Cannot read ${JSON.stringify(path)}: it is a directory. Use list_directory or glob to see its contents.`,
    );
  }
  if (outcome.kind === 'special') {
    throw new ToolExecutionError(`Cannot read ${JSON.stringify(path)}: it is not a regular file.`);
  }
  if (outcome.kind === 'over_ceiling') {
    throw new ToolExecutionError(
      view === 'text'
        ? `Cannot read ${JSON.stringify(path)}: it is larger than the ${formatBytes(ceiling)} ceiling of the text view. Search it with grep instead.`
        : `Cannot read ${JSON.stringify(path)} with view "${view}": it is larger than the ${formatBytes(ceiling)} ceiling of the byte views, and byte views are never truncated. Use view "text" for a text file.`,
    );
  }
  return outcome;
}

async function readFile(args: Static<typeof parameters>, context: ToolContext): Promise<ReadFileResult> {
  const { path, startLine: startLineArgument, maxLines: maxLinesArgument } = args;
  const view = args.view ?? 'text';
  if (view !== 'text' && (startLineArgument !== undefined || maxLinesArgument !== undefined)) {
    throw new ToolArgumentError(
      `startLine and maxLines apply to view "text" only; view "${view}" always returns the whole file. Remove them, or use view "text".`,
    );
  }

  assertFilePathSyntax(path);
  const ceiling = view === 'text' ? TEXT_VIEW_CEILING_BYTES : BYTE_VIEW_CEILING_BYTES;
  const outcome = await fileOperationsFor(context).readFile({ path, need: 'read', ceiling, action: 'read' });
  // The second wall: wherever the file work ran, the location it read is decided here again.
  (await getAccessPolicy(context)).require(outcome.real, 'read', path, outcome.real);
  const { real, bytes, mtimeMs } = fileOrRefusal(outcome, path, view, ceiling);
  const sha256 = sha256Hex(bytes);
  const totalLines = countLines(bytes);
  const observation = { path: real, sha256, size: bytes.length, mtimeMs, totalLines };

  if (view !== 'text') {
    await recordRead(context.ledger, { ...observation, startLine: 1, endLine: totalLines, byteView: true });
    const content =
      view === 'hex' ? Buffer.from(bytes).toString('hex') : Buffer.from(bytes).toString('base64');
    return {
      content,
      path,
      size: bytes.length,
      sha256,
      totalLines: 0,
      startLine: 1,
      endLine: 0,
      truncated: false,
      view,
    };
  }

  if (looksBinary(bytes)) {
    throw new ToolExecutionError(
      `Cannot read ${JSON.stringify(path)} as text: it has a NUL byte in its first ${BINARY_PROBE_BYTES / 1024} KiB, so it is binary. Read it with view "hex" or view "base64" (up to ${formatBytes(BYTE_VIEW_CEILING_BYTES)}).`,
    );
  }
  const startLine = startLineArgument ?? 1;
  if (startLine > Math.max(totalLines, 1)) {
    throw new ToolArgumentError(
      `startLine ${startLine} is past the end of ${JSON.stringify(path)}, which has ${totalLines} line${totalLines === 1 ? '' : 's'}.`,
    );
  }
  const text = new TextDecoder().decode(bytes);
  const window = renderTextWindow(
    text,
    totalLines,
    startLine,
    maxLinesArgument ?? DEFAULT_MAX_LINES,
    maxLinesArgument !== undefined,
  );
  await recordRead(context.ledger, { ...observation, startLine, endLine: window.endLine, byteView: false });
  return {
    content: window.content,
    path,
    size: bytes.length,
    sha256,
    totalLines,
    startLine,
    endLine: window.endLine,
    truncated: window.truncated,
  };
}

export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Reads a file. view "text" (default) returns line-numbered text (six-wide line number, TAB, line) for a window of lines, up to 10 MiB files; view "hex" or "base64" returns the whole file\'s bytes (up to 256 KiB) for binary files. Always returns the file\'s sha256, size and total line count. A file must be read completely before write_file or edit_file may change it.',
  parameters,
  traits: readOnlyLocalTraits('file_content'),
  resultBudgetBytes: READ_FILE_RESULT_BUDGET_BYTES,
  title: 'Read file',
  summary: 'Lets the model read files as numbered text or raw bytes.',
  category: 'system',
  enabledByDefault: true,
  canDisable: true,
  settings: { ...PATH_ACCESS_SETTINGS },
  execute: readFile,
});

registerTool(readFileTool);
