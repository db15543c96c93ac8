/**
 * Where a file tool's thread program is, and the Worker type that runs it: beside the module that starts
 * it in the sources (a `.ts` file), and beside the bundle that holds that module in a file worker's
 * sandbox, where file-worker-bundle.ts builds it under its bundle name and file-worker-sandbox.ts mounts
 * it next to the worker's program.
 */

import { availableParallelism } from 'node:os';

/**
 * Threads one search starts: two where there are two cores or more (the calling thread walks and
 * merges beside them), one on a single core.
 */
export function searchThreadCount(): number {
  return Math.max(1, Math.min(2, availableParallelism()));
}

/** Bun's Worker, which can stop keeping the process alive (not in the DOM typings). */
export type ReferencedWorker = Worker & { ref(): void; unref(): void };

/**
 * The URL of thread program `source` (its `.ts` file name) for the module at `moduleUrl`, or of
 * `bundleName` beside it once that module is bundled.
 */
export function threadProgramUrl(moduleUrl: string, source: string, bundleName: string): string {
  return new URL(moduleUrl.endsWith('.ts') ? `./${source}` : `./${bundleName}`, moduleUrl).href;
}
