/**
 * The file operations (tools/fs/file-operations.ts) of this process's tool calls. Tools are registered
 * once per process, so where their file work runs is held here, like the shell sandbox
 * (host-shell-sandbox.ts): a server whose sandbox can hold a worker installs the one that runs each
 * user's file work in that user's sandbox (src/file-worker/); anything that installs none (operator
 * mode, the CLI, tests of the mechanics) does the work in this process, on verified descriptors, with
 * created files given to the user's uid.
 */

import type { FileOperations } from '../tools/fs/file-operations.ts';
import { createInProcessFileOperations } from '../tools/fs/in-process-file-operations.ts';
import type { ToolContext } from '../tools/types.ts';
import { sandboxFileOwner } from './sandbox-file-owner.ts';

/** Where the file work of one call runs. */
export type FileOperationsFactory = (context: ToolContext) => FileOperations;

let installed: FileOperationsFactory | undefined;
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
    operations = (installed ?? inProcessFileOperations)(context);
    perCall.set(context, operations);
  }
  return operations;
}

/**
 * Makes `factory` decide where every later call's file work runs. The returned function puts back the
 * one used before, unless another was installed since.
 */
export function installFileOperations(factory: FileOperationsFactory): () => void {
  const previous = installed;
  installed = factory;
  return () => {
    if (installed === factory) installed = previous;
  };
}
