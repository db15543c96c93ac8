/**
 * The data directory (`MANGO_DATA_DIR`) is the server's own: mode 0700, so no other account on the host
 * — a sandbox uid, another local user — can list it or reach the database and images inside, whatever
 * the modes of the files below. It is created so, and one an older version left wider (0755) is
 * narrowed on its descriptor at every start of the server and of every CLI command that opens the
 * database. A data directory that cannot be made so stops the start with the reason.
 */
import type { HeldDirectory } from '../descriptors/held-directory.ts';
import { openPrivateDirectory } from '../descriptors/private-directory.ts';
import { MangoError } from '../errors/mango-error.ts';

/** The data directory cannot be created, opened or given mode 0700; the server does not start. */
export class DataDirectoryError extends MangoError {
  override name = 'DataDirectoryError';
  constructor(message: string, options?: ErrorOptions) {
    super('data_directory_unusable', message, options);
  }
}

/**
 * Opens the data directory at `path`, created or narrowed to mode 0700; the caller closes it.
 * @throws DataDirectoryError naming the directory and the cause.
 */
export function openDataDirectory(path: string): HeldDirectory {
  try {
    return openPrivateDirectory(path);
  } catch (error) {
    throw new DataDirectoryError(
      `The data directory ${path} (MANGO_DATA_DIR) cannot be made the server's own (mode 0700): ${(error as Error).message}`,
    );
  }
}

/** {@link openDataDirectory}, closed again: for a start that only needs the directory to be so. */
export function prepareDataDirectory(path: string): void {
  openDataDirectory(path).close();
}
