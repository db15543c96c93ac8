/**
 * The file worker's program as one JavaScript file: file-worker-main.ts and what it imports, bundled by
 * Bun once per process. One file, so the worker's sandbox shows the worker's code and nothing else of
 * the installation (file-worker-sandbox.ts); built from the running installation's own sources, so
 * the worker always speaks this server's protocol.
 */
import { join } from 'node:path';
import { MangoError } from '../errors/mango-error.ts';

let built: Promise<string> | undefined;

/** The bundled program; the build runs at the first call (about 15 ms) and is kept. */
export function fileWorkerScript(): Promise<string> {
  built ??= (async () => {
    const result = await Bun.build({
      entrypoints: [join(import.meta.dir, 'file-worker-main.ts')],
      target: 'bun',
    });
    const output = result.outputs[0];
    if (!result.success || output === undefined || result.outputs.length !== 1) {
      built = undefined;
      const logs = result.logs.map((log) => String(log.message)).join('; ');
      throw new MangoError('file_worker_build', `The file worker's program could not be built: ${logs}`);
    }
    return output.text();
  })();
  return built;
}
