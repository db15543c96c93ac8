/**
 * Reading a whole regular file the way every filesystem tool must: open it once without blocking, verify
 * the descriptor against the access policy (no check-then-open race), refuse anything that `fstat` does
 * not show as a regular file before a byte is read, and read under a byte ceiling that bounds what the
 * descriptor yields rather than what stat claims. The outcome is data (file-operations.ts): read_file
 * and the write_file / edit_file overwrite guard word a directory, a special file or a file over the
 * ceiling themselves.
 */
import type { AccessNeed } from '../access/access-policy.ts';
import type { ResolvedPath } from '../access/resolve-and-validate-path.ts';
import type { ToolContext } from '../types.ts';
import { describeSystemError } from './describe-system-error.ts';
import type { ReadFileOutcome } from './file-operations.ts';
import { openVerifiedForReading } from './open-verified-file.ts';
import { readBounded } from './read-bounded.ts';

export interface ReadVerifiedFileOptions {
  /** Most bytes accepted; a file that yields more is `over_ceiling`. */
  ceiling: number;
  /** Verb for operating-system errors on the path ("read", "open"). */
  action: string;
  /** How messages refer to the path (the model's own spelling). */
  shown: string;
  /** `write` when the file is read to be replaced: its location must be read-write. */
  need?: AccessNeed;
}

/** Throws a classified ToolError naming the path for what the system refused; never a partial read. */
export async function readVerifiedFile(
  resolved: ResolvedPath,
  context: ToolContext,
  options: ReadVerifiedFileOptions,
): Promise<ReadFileOutcome> {
  let opened: Awaited<ReturnType<typeof openVerifiedForReading>>;
  try {
    opened = await openVerifiedForReading(resolved, context, options.need ?? 'read');
  } catch (error) {
    throw describeSystemError(error, options.action, options.shown);
  }
  const { handle, real } = opened;
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) return { kind: 'directory', real };
    if (!stats.isFile()) return { kind: 'special', real };
    const read = await readBounded(handle, options.ceiling, stats.size);
    if (!read.ok) return { kind: 'over_ceiling', real };
    return { kind: 'file', real, bytes: read.bytes, mode: stats.mode & 0o7777, mtimeMs: stats.mtimeMs };
  } finally {
    await handle.close();
  }
}
