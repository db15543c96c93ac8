/**
 * Reading a whole regular file the way every filesystem tool must: open it once without blocking, verify
 * the descriptor against the access policy (no check-then-open race), refuse anything that `fstat` does
 * not show as a regular file before a byte is read, and read under a byte ceiling that bounds what the descriptor yields rather than
 * what stat claims. read_file and the write_file / edit_file overwrite guard share it; only their
 * wording of a refusal differs.
 */
import type { Stats } from 'node:fs';
import type { AccessNeed } from '../access/access-policy.ts';
import type { ResolvedPath } from '../access/resolve-and-validate-path.ts';
import { ToolExecutionError } from '../errors.ts';
import type { ToolContext } from '../types.ts';
import { describeSystemError } from './describe-system-error.ts';
import { openVerifiedForReading } from './open-verified-file.ts';
import { readBounded } from './read-bounded.ts';

export interface ReadVerifiedFileOptions {
  /** Most bytes accepted; a file that yields more is refused with `overCeiling()`. */
  ceiling: number;
  /** Verb for operating-system errors on the path ("read", "open"). */
  action: string;
  /** How messages refer to the path (the model's own spelling). */
  shown: string;
  /** The refusal when the path is a directory or another non-regular file. */
  notRegularFile: (isDirectory: boolean) => string;
  /** The refusal when the file yields more than `ceiling` bytes. */
  overCeiling: () => string;
  /** `write` when the file is read to be replaced: its location must be read-write. */
  need?: AccessNeed;
}

export interface VerifiedFileContent {
  /** Real location of the opened descriptor (the freshness ledger's key). */
  real: string;
  bytes: Uint8Array;
  /** Stat of the opened descriptor, taken before the read. */
  stats: Stats;
}

/** Throws a classified ToolError naming the path; never returns a partial read. */
export async function readVerifiedFile(
  resolved: ResolvedPath,
  context: ToolContext,
  options: ReadVerifiedFileOptions,
): Promise<VerifiedFileContent> {
  let opened: Awaited<ReturnType<typeof openVerifiedForReading>>;
  try {
    opened = await openVerifiedForReading(resolved, context, options.need ?? 'read');
  } catch (error) {
    throw describeSystemError(error, options.action, options.shown);
  }
  const { handle, real } = opened;
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new ToolExecutionError(options.notRegularFile(stats.isDirectory()));
    const read = await readBounded(handle, options.ceiling, stats.size);
    if (!read.ok) throw new ToolExecutionError(options.overCeiling());
    return { real, bytes: read.bytes, stats };
  } finally {
    await handle.close();
  }
}
