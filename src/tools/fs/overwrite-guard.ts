/**
 * What write_file and edit_file share before they replace a file: the target must be a regular file or
 * not exist yet (a symlink, a FIFO, a socket, a device or a directory is refused before anything is
 * opened or replaced, and the opened descriptor must show a regular file again), and an existing file may
 * be replaced only when the chat holds a complete observation of it that still matches the disk.
 *
 * The file work goes through the call's file operations (file-operations.ts); the freshness decision
 * and the wording stay here, with the chat's ledger.
 */
import { lstat } from 'node:fs/promises';
import type { AccessPolicy } from '../access/access-policy.ts';
import type { ResolvedPath } from '../access/resolve-and-validate-path.ts';
import { ToolExecutionError } from '../errors.ts';
import type { ToolContext } from '../types.ts';
import { describeSystemError } from './describe-system-error.ts';
import type { FileOperations, ReplaceFileRequest } from './file-operations.ts';
import { assertFreshForOverwrite, countLines, recordWrite, sha256Hex } from './freshness.ts';

/** Largest file write_file / edit_file will re-read to check freshness (read_file's text ceiling). */
export const OVERWRITE_READ_CEILING_BYTES = 10 * 1024 * 1024;

/** `missing` or `file`; throws for a symlink, a directory or a special file. */
export async function inspectWriteTarget(resolved: ResolvedPath, shown: string): Promise<'missing' | 'file'> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(resolved.absolute);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') return 'missing';
    throw describeSystemError(error, 'write', shown);
  }
  if (stats.isSymbolicLink()) {
    throw new ToolExecutionError(
      `Refusing to write ${JSON.stringify(shown)}: it is a symlink (to ${resolved.real}). Write to the target path itself if that is what you mean.`,
    );
  }
  if (stats.isDirectory()) {
    throw new ToolExecutionError(`Refusing to write ${JSON.stringify(shown)}: it is a directory.`);
  }
  if (!stats.isFile()) {
    throw new ToolExecutionError(`Refusing to write ${JSON.stringify(shown)}: it is not a regular file.`);
  }
  return 'file';
}

export interface ExistingFile {
  /** Real path of the opened descriptor. */
  real: string;
  bytes: Uint8Array;
  sha256: string;
  /** Permission bits to keep. */
  mode: number;
}

/**
 * Reads an existing file for writing (verified against policy) and checks the chat's observation. Throws
 * a ToolExecutionError that tells the model what to do when the chat may not overwrite it.
 */
export async function readExistingForOverwrite(
  operations: FileOperations,
  context: ToolContext,
  shown: string,
): Promise<ExistingFile> {
  const outcome = await operations.readFile({
    path: shown,
    need: 'write',
    ceiling: OVERWRITE_READ_CEILING_BYTES,
    action: 'open',
  });
  if (outcome.kind === 'directory' || outcome.kind === 'special') {
    throw new ToolExecutionError(`Refusing to write ${JSON.stringify(shown)}: it is not a regular file.`);
  }
  if (outcome.kind === 'over_ceiling') {
    throw new ToolExecutionError(
      `Refusing to overwrite ${JSON.stringify(shown)}: it is larger than ${OVERWRITE_READ_CEILING_BYTES / (1024 * 1024)} MiB, more than read_file can show, so this chat cannot have read all of it.`,
    );
  }
  const sha256 = sha256Hex(outcome.bytes);
  await assertFreshForOverwrite(context.ledger, outcome.real, shown, { size: outcome.bytes.length, sha256 });
  return { real: outcome.real, bytes: outcome.bytes, sha256, mode: outcome.mode };
}

/**
 * Replaces the file through the call's file operations, decides the location written again (the second
 * wall: wherever the work ran, the server's policy has the last word) and records the whole new content
 * in the chat's ledger, so a second write needs no re-read. Returns the content's SHA-256.
 */
export async function replaceAndRecord(
  operations: FileOperations,
  policy: AccessPolicy,
  context: ToolContext,
  request: ReplaceFileRequest,
): Promise<string> {
  const written = await operations.replaceFile(request);
  policy.require(written.real, 'write', request.shown, written.real);
  const sha256 = sha256Hex(request.data);
  await recordWrite(context.ledger, {
    path: written.real,
    sha256,
    size: written.size,
    mtimeMs: written.mtimeMs,
    totalLines: countLines(request.data),
  });
  return sha256;
}
