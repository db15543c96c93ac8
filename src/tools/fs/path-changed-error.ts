/**
 * The object a write was acting on is no longer the one at its name: a tenant renamed, replaced or
 * swapped an entry while the server held it (for example the temp file was moved away and something
 * else took its name before the rename). Nothing outside the held directories was touched; the caller
 * reports it like a link met by a descriptor open (`describeSystemError`).
 */
import { MangoError } from '../../errors/mango-error.ts';
export class PathChangedError extends MangoError {
  constructor(what: string) {
    super('path_changed', `${what} changed while the tool was using it`);
    this.name = 'PathChangedError';
  }
}
