/**
 * The files routes' one fixed answer for a path outside the request's reach: a refusal by the access
 * policy (of the path as resolved, or of what a descriptor opened there turned out to be) becomes
 * `undefined`, which the operation reports as `{ kind: 'refused' }`. Operating-system errors are not
 * refusals: they reach the caller as thrown, to be described with the path.
 */
import { ToolError } from '../errors.ts';
import type { RefusedPath } from './file-operations.ts';

export const REFUSED: RefusedPath = Object.freeze({ kind: 'refused' });

/** `work`'s value, or undefined when the policy refused what it asked for. */
export async function unlessRefused<T>(work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if (ToolError.isInstance(error) && error.classification === 'permission_denied') return undefined;
    throw error;
  }
}
