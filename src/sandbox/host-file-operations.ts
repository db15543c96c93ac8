/**
 * The file operations (tools/fs/file-operations.ts) of this process's tool calls. Tools are registered
 * once per process, so where their file work runs is held here, like the shell sandbox
 * (host-shell-sandbox.ts): a server whose sandbox can hold a worker installs the one that runs each
 * user's file work in that user's sandbox (src/file-worker/); anything that installs none (operator
 * mode, the CLI, tests of the mechanics) does the work in this process, on verified descriptors, with
 * created files given to the user's uid.
 *
 * A call's names are resolved where its file work runs (tools/access/location-resolution.ts): the path
 * resolver and the access policy's path settings ask this call's operations, so with workers the
 * server follows no link of a tenant's tree, not even to decide.
 */

import { setLocationResolution } from '../tools/access/location-resolution.ts';
import type { FileOperations } from '../tools/fs/file-operations.ts';
import { createInProcessFileOperations } from '../tools/fs/in-process-file-operations.ts';
import type { ToolContext } from '../tools/types.ts';
import { sandboxFileOwner } from './sandbox-file-owner.ts';

/** Where the file work of one call runs. */
export type FileOperationsFactory = (context: ToolContext) => FileOperations;

/** Installed factories, the latest last: the latest one still installed decides. */
const installed: FileOperationsFactory[] = [];
/** One object per call, so every step of a call goes the same way. */
const perCall = new WeakMap<ToolContext, FileOperations>();

/** The call's file work done in this process. */
export function inProcessFileOperations(context: ToolContext): FileOperations {
  return createInProcessFileOperations(context, () => sandboxFileOwner(context.userId));
}

/** The file operations of the call `context`. */
export function fileOperationsFor(context: ToolContext): FileOperations {
  let operations = perCall.get(context);
  if (operations === undefined) {
    operations = (installed.at(-1) ?? inProcessFileOperations)(context);
    perCall.set(context, operations);
  }
  return operations;
}

setLocationResolution((context) => (absolute) => fileOperationsFor(context).resolveLocation(absolute));

/**
 * Makes `factory` decide where every later call's file work runs, until the returned function takes it
 * away again. Installs and removals may interleave (servers that stop in another order than they
 * started): removing one never brings back a factory already removed.
 */
export function installFileOperations(factory: FileOperationsFactory): () => void {
  const entry = (context: ToolContext) => factory(context);
  installed.push(entry);
  return () => {
    const index = installed.indexOf(entry);
    if (index !== -1) installed.splice(index, 1);
  };
}
