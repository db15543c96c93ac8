/**
 * What is at a path, for a caller that must know it is a regular file before pointing a model at it (a
 * message's attachments): the path resolved and decided for reading by the call's access policy, then
 * opened by object with links refused on every component and checked on its descriptor, as a read is.
 * Not a byte of the file is read: the answer is its kind and real location only.
 */
import { HeldDirectory } from '../../descriptors/held-directory.ts';
import { resolveAndValidatePath } from '../access/resolve-and-validate-path.ts';
import type { ToolContext } from '../types.ts';
import type { InspectedFile, InspectFileRequest } from './file-operations.ts';
import { SAFE_READ_FLAGS, verifyDescriptor } from './open-verified-file.ts';

/** The kind of what `request.path` names; a refusal or an operating-system error is thrown. */
export async function inspectFile(request: InspectFileRequest, context: ToolContext): Promise<InspectedFile> {
  const resolved = await resolveAndValidatePath(request.path, context, request.argument, 'read');
  if (!resolved.exists) return { kind: 'missing' };
  const handle = await HeldDirectory.openPathHandle(resolved.real, SAFE_READ_FLAGS);
  try {
    await verifyDescriptor(handle, resolved, context);
    const stats = await handle.stat();
    const kind = stats.isFile() ? 'file' : stats.isDirectory() ? 'directory' : 'special';
    return { kind, real: resolved.real };
  } finally {
    await handle.close();
  }
}
