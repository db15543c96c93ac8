/**
 * write_file: creates a file, with missing parent
 * directories, without a prior read; overwrites an existing file only when this chat has read all of it
 * and it has not changed on disk since. No argument bypasses that guard. The write is atomic (temp file in
 * the same directory, then rename) and keeps the old file's permission bits.
 */

import { type Static, Type } from '@sinclair/typebox';
import { fileOperationsFor } from '../../sandbox/host-file-operations.ts';
import { getAccessPolicy } from '../access/access-policy.ts';
import { assertFilePathSyntax } from '../access/tool-path-syntax.ts';
import { defineTool } from '../define-tool.ts';
import { readExistingForOverwrite, replaceAndRecord } from '../fs/overwrite-guard.ts';
import { filePathParameter, PATH_ACCESS_SETTINGS } from '../fs/path-access-settings.ts';
import { WRITE_APPROVAL_SETTINGS } from '../fs/write-approval-settings.ts';
import { registerTool } from '../registry.ts';
import type { ToolContext } from '../types.ts';

export interface WriteFileResult {
  path: string;
  bytesWritten: number;
  created: boolean;
  sha256: string;
}

const parameters = Type.Object({
  path: filePathParameter(),
  content: Type.String({ description: 'The complete new content of the file (UTF-8).' }),
});

async function writeFile(
  { path, content }: Static<typeof parameters>,
  context: ToolContext,
): Promise<WriteFileResult> {
  assertFilePathSyntax(path);
  const operations = fileOperationsFor(context);
  const policy = await getAccessPolicy(context);
  const target = await operations.inspectWriteTarget(path);
  // The second wall: the location the file work decided is decided here again before it is written.
  policy.require(target.real, 'write', path, target.real);
  const existing =
    target.kind === 'missing' ? undefined : await readExistingForOverwrite(operations, context, path);
  if (existing !== undefined) policy.require(existing.real, 'write', path, existing.real);
  const data = new TextEncoder().encode(content);
  const sha256 = await replaceAndRecord(operations, policy, context, {
    target: existing?.real ?? target.real,
    data,
    mode: existing?.mode,
    shown: path,
  });
  return { path, bytesWritten: data.length, created: existing === undefined, sha256 };
}

export const writeFileTool = defineTool({
  name: 'write_file',
  description:
    'Writes a file with the given content, creating it and any missing parent directories. To overwrite an existing file you must first have read all of it with read_file in this chat, and it must not have changed since. The write is atomic.',
  parameters,
  // Replaces a file whole; writing the same content again changes nothing more.
  traits: {
    readOnly: false,
    destructive: true,
    idempotent: true,
    openWorld: false,
    confirmBeforeEnable: false,
    resultView: 'json',
    approvalDefault: 'always',
  },
  title: 'Write file',
  summary: 'Lets the model create files and overwrite files it has read.',
  category: 'system',
  enabledByDefault: true,
  canDisable: true,
  settings: { ...PATH_ACCESS_SETTINGS, ...WRITE_APPROVAL_SETTINGS },
  execute: writeFile,
});

registerTool(writeFileTool);
