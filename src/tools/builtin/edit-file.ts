/**
 * edit_file: replaces an exact string in a file the chat has read completely and that has not
 * changed since (the same guard as write_file). Zero matches, or more than one without `replaceAll`, is
 * an error that says so; the replacement is literal (no `$` patterns) and the write is atomic.
 */

import { type Static, Type } from '@sinclair/typebox';
import type { FileEditArguments, FileEditResult } from '../../contracts/tool-result-view.ts';
import { fileOperationsFor } from '../../sandbox/host-file-operations.ts';
import { getAccessPolicy } from '../access/access-policy.ts';
import { assertFilePathSyntax } from '../access/tool-path-syntax.ts';
import { defineTool } from '../define-tool.ts';
import { ToolArgumentError, ToolExecutionError, ToolNotFoundError } from '../errors.ts';
import { looksBinary } from '../fs/binary-probe.ts';
import { readExistingForOverwrite, replaceAndRecord } from '../fs/overwrite-guard.ts';
import { filePathParameter, PATH_ACCESS_SETTINGS } from '../fs/path-access-settings.ts';
import { WRITE_APPROVAL_SETTINGS } from '../fs/write-approval-settings.ts';
import { registerTool } from '../registry.ts';
import type { ToolContext } from '../types.ts';

/** The `file_edit` result view's shape; the view draws its diff from the call's arguments. */
export type EditFileResult = FileEditResult;

/** Start offsets of the non-overlapping occurrences of `needle`, left to right. */
export function findOccurrences(text: string, needle: string): number[] {
  const offsets: number[] = [];
  let index = text.indexOf(needle);
  while (index !== -1) {
    offsets.push(index);
    index = text.indexOf(needle, index + needle.length);
  }
  return offsets;
}

const parameters = Type.Object({
  path: filePathParameter(),
  oldString: Type.String({
    description: 'The exact text to replace, including whitespace (without read_file line numbers).',
    minLength: 1,
  }),
  newString: Type.String({ description: 'The text to put in its place.' }),
  replaceAll: Type.Optional(Type.Boolean({ description: 'Replace every occurrence (default false).' })),
});

/** The file's text with the edit made: decoded strictly, the old string matched (CRLF-aware) and replaced. */
function applyEdit(
  bytes: Uint8Array,
  path: string,
  { oldString, newString }: FileEditArguments,
  replaceAll: boolean,
): { updated: string; replacements: number; firstChangedLine: number } {
  let text: string;
  try {
    // ignoreBOM keeps a byte-order mark in the text, so the write puts back every byte outside the edit.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ToolExecutionError(
      `Cannot edit ${JSON.stringify(path)}: it is not valid UTF-8, so a text edit could corrupt it. Use write_file instead.`,
    );
  }
  // read_file shows CRLF lines without their CR, so a multi-line oldString copied from it has bare LFs;
  // in a CRLF file both strings are matched and written with the file's own line ends.
  let oldText = oldString;
  let newText = newString;
  let occurrences = findOccurrences(text, oldText);
  if (occurrences.length === 0 && text.includes('\r\n') && /(?<!\r)\n/.test(oldString)) {
    const toCrlf = (value: string) => value.replace(/\r?\n/g, '\r\n');
    oldText = toCrlf(oldString);
    newText = toCrlf(newString);
    occurrences = findOccurrences(text, oldText);
  }
  if (occurrences.length === 0) {
    throw new ToolArgumentError(
      `oldString was not found in ${JSON.stringify(path)}. It must match the file exactly, including whitespace and indentation (read_file shows each line after a line number and a TAB).`,
    );
  }
  if (occurrences.length > 1 && !replaceAll) {
    throw new ToolArgumentError(
      `oldString occurs ${occurrences.length} times in ${JSON.stringify(path)}. Include more surrounding text to make it unique, or set replaceAll to true to replace every occurrence.`,
    );
  }
  const first = occurrences[0]!;
  const updated = replaceAll
    ? text.split(oldText).join(newText)
    : text.slice(0, first) + newText + text.slice(first + oldText.length);
  let firstChangedLine = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < first; index = text.indexOf('\n', index + 1)) {
    firstChangedLine += 1;
  }
  return { updated, replacements: occurrences.length, firstChangedLine };
}

async function editFile(args: Static<typeof parameters>, context: ToolContext): Promise<EditFileResult> {
  // Typed as the contract's: the web app's diff reads these names, so a renamed parameter fails to compile.
  const { path, oldString, newString }: FileEditArguments = args;
  const replaceAll = args.replaceAll ?? false;
  if (oldString === newString) {
    throw new ToolArgumentError('oldString and newString are identical; there is nothing to change.');
  }
  assertFilePathSyntax(path);
  const operations = fileOperationsFor(context);
  const policy = await getAccessPolicy(context);
  const target = await operations.inspectWriteTarget(path);
  // The second wall: every location the file work names is decided here again.
  policy.require(target.real, 'write', path, target.real);
  if (target.kind === 'missing') {
    throw new ToolNotFoundError(
      `Cannot edit ${JSON.stringify(path)}: it does not exist. Create it with write_file.`,
    );
  }
  const existing = await readExistingForOverwrite(operations, context, path);
  policy.require(existing.real, 'write', path, existing.real);
  if (looksBinary(existing.bytes)) {
    throw new ToolExecutionError(
      `Cannot edit ${JSON.stringify(path)}: it is a binary file. Use write_file instead.`,
    );
  }
  const { updated, replacements, firstChangedLine } = applyEdit(existing.bytes, path, args, replaceAll);
  const data = new TextEncoder().encode(updated);
  const sha256 = await replaceAndRecord(operations, policy, context, {
    target: existing.real,
    data,
    mode: existing.mode,
    shown: path,
  });
  return { path, replacements, sha256, firstChangedLine };
}

export const editFileTool = defineTool({
  name: 'edit_file',
  description:
    'Replaces an exact string in a file. oldString must occur exactly once unless replaceAll is true. The file must have been read completely with read_file in this chat and not changed since. Returns the number of replacements and the first changed line.',
  parameters,
  traits: {
    readOnly: false,
    destructive: true,
    idempotent: false,
    openWorld: false,
    confirmBeforeEnable: false,
    resultView: 'file_edit',
    approvalDefault: 'always',
  },
  title: 'Edit file',
  summary: 'Lets the model change parts of files it has read.',
  category: 'system',
  enabledByDefault: true,
  canDisable: true,
  settings: { ...PATH_ACCESS_SETTINGS, ...WRITE_APPROVAL_SETTINGS },
  execute: editFile,
});

registerTool(editFileTool);
