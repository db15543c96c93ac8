/**
 * The error of a failed file system call made by descriptor. It carries the errno name as `code`, as
 * Node's own errors do, so every caller that classifies `ENOENT`, `EACCES` or `ELOOP` keeps working
 * whether the call went through `node:fs` or through the calls of this folder.
 */
import util from 'node:util';
import { MangoError } from '../errors/mango-error.ts';

export class SystemCallError extends MangoError {
  /** The errno name, for example `ELOOP`. */
  override readonly code: string;
  readonly errno: number;
  readonly syscall: string;

  constructor(errno: number, syscall: string, shown: string) {
    const code = util.getSystemErrorName(-errno);
    const description = util.getSystemErrorMessage?.(-errno) ?? code;
    super(code, `${code}: ${description}, ${syscall} ${JSON.stringify(shown)}`);
    this.name = 'SystemCallError';
    this.code = code;
    this.errno = errno;
    this.syscall = syscall;
  }
}

/**
 * The errno name (`code`) of a failed file system call, from this folder's calls or from `node:fs`;
 * undefined for anything else.
 */
export function errorCodeOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The calls of this folder cannot run here (not Linux, no `openat2`, no libc). Nothing falls back to
 * acting by name: the caller fails and says why.
 */
export class DescriptorCallsUnavailableError extends MangoError {
  constructor(reason: string) {
    super(
      'descriptor_calls_unavailable',
      `The server acts on files only through verified descriptors, and that is not possible on this host: ${reason}. It needs Linux 5.6 or later (openat2) with /proc mounted.`,
    );
    this.name = 'DescriptorCallsUnavailableError';
  }
}
