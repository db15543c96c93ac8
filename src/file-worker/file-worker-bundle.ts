/**
 * The file worker's program as JavaScript files: file-worker-main.ts and what it imports, bundled by
 * Bun once per process, and beside it grep's worker thread (tools/fs/grep/grep-worker.ts), which the
 * worker starts for a grep call as the server does in process (batch-executors.ts finds it next to the
 * bundle as `GREP_WORKER_BUNDLE_NAME`), and glob's thread (tools/fs/glob-thread.ts, found as
 * `GLOB_THREAD_BUNDLE_NAME` by scan-glob-in-threads.ts). Bundled, so the worker's sandbox shows the worker's code and
 * nothing else of the installation (file-worker-sandbox.ts); built from the running installation's own
 * sources, so the worker always speaks this server's protocol.
 */
import { join } from 'node:path';
import { MangoError } from '../errors/mango-error.ts';

/** The worker's program and the thread programs it starts, as text. */
export interface FileWorkerProgram {
  script: string;
  grepWorker: string;
  globThread: string;
}

let built: Promise<FileWorkerProgram> | undefined;

async function build(entry: string): Promise<string> {
  const result = await Bun.build({ entrypoints: [entry], target: 'bun' });
  const output = result.outputs[0];
  if (!result.success || output === undefined || result.outputs.length !== 1) {
    const logs = result.logs.map((log) => String(log.message)).join('; ');
    throw new MangoError('file_worker_build', `The file worker's program could not be built: ${logs}`);
  }
  return output.text();
}

/** The bundled programs; the build runs at the first call (a few tens of ms) and is kept. */
export function fileWorkerProgram(): Promise<FileWorkerProgram> {
  built ??= (async () => {
    const [script, grepWorker, globThread] = await Promise.all([
      build(join(import.meta.dir, 'file-worker-main.ts')),
      build(join(import.meta.dir, '..', 'tools', 'fs', 'grep', 'grep-worker.ts')),
      build(join(import.meta.dir, '..', 'tools', 'fs', 'glob-thread.ts')),
    ]);
    return { script, grepWorker, globThread };
  })().catch((error: unknown) => {
    built = undefined;
    throw error;
  });
  return built;
}

/** The worker's own program (see {@link fileWorkerProgram}). */
export async function fileWorkerScript(): Promise<string> {
  return (await fileWorkerProgram()).script;
}
