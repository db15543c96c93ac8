/**
 * Freshness checks against a chat's ledger (docs/tools.md, "Freshness ledger"), shared by
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

type LineRange = [number, number];

/**
 * Pure: the coverage after adding `[startLine, endLine]` to a prefix `1..coveredThrough` and extra
 * ranges. Ranges that touch or overlap merge; any that reach the prefix join it.
 */
export function mergeCoverage(
  coveredThrough: number,
  ranges: readonly LineRange[],
  added: LineRange,
): { coveredThrough: number; coveredRanges: LineRange[] } {
  const sorted = [...ranges, added]
    .filter(([first, last]) => first <= last)
    .sort((left, right) => left[0] - right[0]);
  let prefix = coveredThrough;
  const rest: LineRange[] = [];
  for (const [first, last] of sorted) {
    if (first <= prefix + 1) {
      prefix = Math.max(prefix, last);
      continue;
    }
    const previous = rest[rest.length - 1];
    if (previous && first <= previous[1] + 1) previous[1] = Math.max(previous[1], last);
    else rest.push([first, last]);
  }
  // A range that started past the old prefix may touch the grown one.
  while (rest.length > 0 && rest[0]![0] <= prefix + 1) prefix = Math.max(prefix, rest.shift()![1]);
  return { coveredThrough: prefix, coveredRanges: rest };
}

/**
 * One read-modify-write of a path's observation at a time per ledger: read-only tools of one model
 * response run concurrently, and two chunked reads of the same file must not overwrite each other's
 * coverage.
 */
const pending = new WeakMap<FreshnessLedger, Map<string, Promise<void>>>();

async function serialized(ledger: FreshnessLedger, path: string, update: () => Promise<void>): Promise<void> {
  let byPath = pending.get(ledger);
  if (!byPath) {
    byPath = new Map();
    pending.set(ledger, byPath);
  }
  const previous = byPath.get(path) ?? Promise.resolve();
  const current = previous.then(update, update);
  const settled = current.catch(() => {});
  byPath.set(path, settled);
  try {
    await current;
  } finally {
    if (byPath.get(path) === settled) byPath.delete(path);
  }
}

/**
 * Merges one read into the ledger. Lines covered accumulate across reads of the same content in any
 * order; a read of different content starts over.
 */
export async function recordRead(ledger: FreshnessLedger, input: ReadObservationInput): Promise<void> {
  await serialized(ledger, input.path, async () => {
    const previous = await ledger.get(input.path);
    const sameContent = previous !== undefined && previous.sha256 === input.sha256;
    const coverage = input.byteView
      ? { coveredThrough: input.totalLines, coveredRanges: [] }
      : mergeCoverage(
          sameContent ? previous.coveredThrough : 0,
          sameContent ? (previous.coveredRanges ?? []) : [],
          [input.startLine, input.endLine],
        );
    const complete =
      input.byteView || (sameContent && previous.complete) || coverage.coveredThrough >= input.totalLines;
    const observation: FileObservation = {
      path: input.path,
      sha256: input.sha256,
      size: input.size,
      mtimeMs: input.mtimeMs,
      coveredThrough: coverage.coveredThrough,
      complete,
      totalLines: input.totalLines,
    };
    if (!complete && coverage.coveredRanges.length > 0) observation.coveredRanges = coverage.coveredRanges;
    await ledger.put(observation);
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
    const next = observation.coveredThrough + 1;
    const later = observation.coveredRanges ?? [];
    const covered = [
      ...(observation.coveredThrough > 0 ? [[1, observation.coveredThrough]] : []),
      ...later,
    ].map(([first, last]) => `${first}-${last}`);
    const read = covered.length === 0 ? 'none of it' : `only lines ${covered.join(', ')} of it`;
    const window = later.length === 0 ? '' : `, maxLines ${later[0]![0] - next}`;
    throw new ToolExecutionError(
      `Cannot overwrite ${JSON.stringify(shown)}: this chat has read ${read}. Read the remaining lines first (read_file with startLine ${next}${window}), then try again.`,
    );
  }
}
