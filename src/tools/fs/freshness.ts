/**
 * Freshness checks against a chat's ledger (issue 3, "Freshness ledger and write_file"), shared by
 * read_file (records what was shown), write_file and edit_file (refuse to overwrite a file the chat has
 * not completely read, or that changed on disk since). Works with any `FreshnessLedger` implementation.
 */
import { ToolExecutionError } from '../errors.ts';
import type { FileObservation, FreshnessLedger } from '../freshness-ledger.ts';

export function sha256Hex(data: Uint8Array | string): string {
  return new Bun.CryptoHasher('sha256').update(data).digest('hex');
}

/** Lines as read_file counts them: `\n`-separated, a final newline does not start a new line. */
export function countLines(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0;
  let count = 0;
  let index = bytes.indexOf(10);
  while (index !== -1) {
    count += 1;
    index = bytes.indexOf(10, index + 1);
  }
  return bytes[bytes.length - 1] === 10 ? count : count + 1;
}

export interface ReadObservationInput {
  path: string;
  sha256: string;
  size: number;
  mtimeMs: number;
  totalLines: number;
  /** The lines shown, inclusive; a byte view passes `byteView: true` instead. */
  startLine: number;
  endLine: number;
  byteView: boolean;
}

/**
 * Merges one read into the ledger. Lines covered accumulate across reads of the same content as long as
 * they join up from line 1; a read of different content starts over.
 */
export async function recordRead(ledger: FreshnessLedger, input: ReadObservationInput): Promise<void> {
  const previous = await ledger.get(input.path);
  const sameContent = previous !== undefined && previous.sha256 === input.sha256;
  let coveredThrough = sameContent ? previous.coveredThrough : 0;
  if (input.byteView) coveredThrough = input.totalLines;
  else if (input.startLine <= coveredThrough + 1) coveredThrough = Math.max(coveredThrough, input.endLine);
  const complete = input.byteView || (sameContent && previous.complete) || coveredThrough >= input.totalLines;
  await ledger.put({
    path: input.path,
    sha256: input.sha256,
    size: input.size,
    mtimeMs: input.mtimeMs,
    coveredThrough,
    complete,
  });
}

/** After a successful write the chat knows the whole new content: a second write needs no re-read. */
export async function recordWrite(
  ledger: FreshnessLedger,
  observation: Omit<FileObservation, 'complete' | 'coveredThrough'> & { totalLines: number },
): Promise<void> {
  await ledger.put({
    path: observation.path,
    sha256: observation.sha256,
    size: observation.size,
    mtimeMs: observation.mtimeMs,
    coveredThrough: observation.totalLines,
    complete: true,
  });
}

export interface CurrentFileState {
  size: number;
  /** sha256 (hex) of the current content. */
  sha256: string;
}

/**
 * Throws a ToolExecutionError telling the model what to do unless the chat holds a complete observation
 * of `path` that still matches the disk. Freshness is decided by content hash, never by size and mtime
 * alone: on a filesystem with coarse timestamps (or after a tool that restores mtimes, like tar or
 * rsync) a same-size change keeps both equal, and the shortcut would let a write clobber it unread. The
 * overwrite path reads the whole file anyway, so the hash costs no extra I/O.
 */
export async function assertFreshForOverwrite(
  ledger: FreshnessLedger,
  path: string,
  shown: string,
  current: CurrentFileState,
): Promise<void> {
  const observation = await ledger.get(path);
  if (!observation) {
    throw new ToolExecutionError(
      `Cannot overwrite ${JSON.stringify(shown)}: this chat has not read it. Read the whole file first with read_file (view "hex" or "base64" for a binary file), then try again.`,
    );
  }
  const unchanged = observation.size === current.size && observation.sha256 === current.sha256;
  if (!unchanged) {
    throw new ToolExecutionError(
      `Cannot overwrite ${JSON.stringify(shown)}: it changed on disk since this chat read it. Read it again with read_file, then try again.`,
    );
  }
  if (!observation.complete) {
    throw new ToolExecutionError(
      `Cannot overwrite ${JSON.stringify(shown)}: this chat has read only lines 1-${observation.coveredThrough} of it. Read the remaining lines first (read_file with startLine ${observation.coveredThrough + 1}), then try again.`,
    );
  }
}
