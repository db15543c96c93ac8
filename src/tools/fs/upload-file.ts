/**
 * An upload's file work (file-operations.ts `uploadFile`): the new file NAME in an existing directory.
 *
 * - The directory is resolved and held open from its real path with links refused; the target is
 *   decided for writing at that real location joined with the name, and described through the held
 *   directory, never followed: a symlink, a directory or a special file there is refused, and so is an
 *   existing file unless `overwrite` says to replace it.
 * - The write is the tools' atomic write in that held directory (atomic-write.ts): a temp file
 *   verified for writing by the policy on the directory's real location, given its owner and mode by
 *   descriptor, then renamed (without replacing, for a new file, so a file that appeared meanwhile is
 *   not clobbered). A directory swapped for a link meanwhile fails the upload instead of redirecting it;
 *   a failed upload leaves the old file and no temp file.
 * - A workspace with a disk quota takes no upload its user's share cannot hold (`quota_exceeded`, with
 *   the used figure and the limit).
 */
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { HeldDirectory, withHeldDirectory } from '../../descriptors/held-directory.ts';
import { errorCodeOf } from '../../descriptors/system-call-error.ts';
import { getAccessPolicy } from '../access/access-policy.ts';
import { rootContaining } from '../access/reachable-set.ts';
import { resolveAndValidatePath } from '../access/resolve-and-validate-path.ts';
import type { ToolContext } from '../types.ts';
import { writeFileAtomicallyIn } from './atomic-write.ts';
import { describeSystemError } from './describe-system-error.ts';
import type { UploadFileRequest, UploadOutcome } from './file-operations.ts';
import { REFUSED, unlessRefused } from './unless-refused.ts';

type Owner = { uid: number; gid: number } | undefined;

/** `missing` for what the system says is not there; any other error thrown, described. */
function missingOr(error: unknown, at: 'directory' | 'file', shown: string): UploadOutcome {
  const described = describeSystemError(error, 'open', shown);
  if (described.classification === 'not_found') return { kind: 'missing', at };
  throw described;
}

export async function uploadFile(
  request: UploadFileRequest,
  context: ToolContext,
  owner: () => Promise<Owner>,
): Promise<UploadOutcome> {
  const directory = await unlessRefused(() =>
    resolveAndValidatePath(request.directory, context, 'path', 'read'),
  );
  if (directory === undefined) return REFUSED;
  let held: HeldDirectory;
  try {
    held = HeldDirectory.open(directory.real);
  } catch (error) {
    if (errorCodeOf(error) === 'ENOTDIR' && directory.exists) return { kind: 'not_directory' };
    return missingOr(error, 'directory', request.directory);
  }
  return withHeldDirectory(held, (parent) => uploadInto(parent, directory.real, request, context, owner));
}

async function uploadInto(
  parent: HeldDirectory,
  directoryReal: string,
  request: UploadFileRequest,
  context: ToolContext,
  owner: () => Promise<Owner>,
): Promise<UploadOutcome> {
  const { name, shown } = request;
  // The name is joined to the directory's real path: the directory is decided, only the name is new.
  // Out of reach for reading is the fixed answer; a refusal to write inside the reach keeps its words.
  const target = join(directoryReal, name);
  if ((await unlessRefused(() => resolveAndValidatePath(target, context, 'path', 'read'))) === undefined) {
    return REFUSED;
  }
  await resolveAndValidatePath(target, context, 'path', 'write');
  let entry: Stats | undefined;
  try {
    entry = parent.statEntry(name);
  } catch (error) {
    if (errorCodeOf(error) !== 'ENOENT') return missingOr(error, 'file', shown);
  }
  if (entry !== undefined && !entry.isFile()) {
    const found = entry.isSymbolicLink() ? 'symlink' : entry.isDirectory() ? 'directory' : 'special';
    return { kind: 'not_regular_file', found };
  }
  if (entry !== undefined && !request.overwrite) return { kind: 'exists' };
  const policy = await getAccessPolicy(context);
  const fileOwner = await owner();
  try {
    const written = await unlessRefused(() =>
      writeFileAtomicallyIn(parent, name, request.data, {
        create: entry === undefined,
        owner: fileOwner,
        quotaBytes: rootContaining(context.reachable, directoryReal)?.diskQuotaBytes,
        verifyTarget: async (realTarget) => policy.require(realTarget, 'write', shown, realTarget),
      }),
    );
    if (written === undefined) return REFUSED;
    return { kind: 'written', real: written.path, size: written.size, replaced: entry !== undefined };
  } catch (error) {
    if (errorCodeOf(error) === 'EEXIST') return { kind: 'appeared' };
    return missingOr(error, 'file', shown);
  }
}
