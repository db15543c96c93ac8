/**
 * The installation directory: the checkout this code runs from (its `src/`, `node_modules/`, the built
 * web app in `dist/`). It is found from this module's own location, never from the process's working
 * directory, so starting the server from elsewhere cannot move it out of the protected set.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/** Real path of the repository checkout holding this file (`src/workspaces/` → two levels up). */
export function installationDirectory(): string {
  return realpathSync(resolve(import.meta.dir, '..', '..'));
}
