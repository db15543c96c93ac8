/**
 * A file worker's replies, judged as untrusted input, like a model's arguments: the worker runs as the
 * user, in a sandbox the user's own commands share a uid with, so anything it says may have been made
 * up. Each validator takes the raw result (and payload) and returns a fresh object of exactly the
 * interface's shape (tools/fs/file-operations.ts), or says what is wrong; a wrong reply stops the
 * worker and fails the call. The server's path policy then judges every location a result names again.
 */
import { normalize } from 'node:path';
import type { ToolErrorClassification } from '../contracts/tool-error-classification.ts';
import { MangoError } from '../errors/mango-error.ts';
import { ProtectedPathRefusedError } from '../tools/access/protected-path-refused-error.ts';
import { isPathInside } from '../tools/access/reachable-set.ts';
import {
  PathChangedWhileResolvingError,
  type RealLocation,
  SymlinkLoopError,
} from '../tools/access/real-location.ts';
import { ToolError } from '../tools/errors.ts';
import {
  type DirectoryEntryType,
  type DirectoryListing,
  DOWNLOAD_SIGNATURE_BYTES,
  type DownloadOutcome,
  type FolderEntry,
  type FolderListingOutcome,
  type InspectedFile,
  type ReadFileOutcome,
  type ReplacedFile,
  type UploadOutcome,
  type WriteTarget,
} from '../tools/fs/file-operations.ts';
import { compareFolderEntries } from '../tools/fs/list-folder.ts';

/** The classifications a worker may fail a call with: those of file work, never the server's own. */
const WORKER_CLASSIFICATIONS: readonly ToolErrorClassification[] = [
  'validation_failed',
  'permission_denied',
  'not_found',
  'quota_exceeded',
  'execution_error',
];
const MESSAGE_LIMIT = 16 * 1024;
export const PATH_LIMIT = 4096;
const NAME_LIMIT = 255;
export const ENTRY_LIMIT = 1_000_000;
const ENTRY_TYPES: readonly DirectoryEntryType[] = ['file', 'directory', 'symlink', 'other'];

/** A reply's result that breaks its operation's shape. */
export class InvalidReplyError extends MangoError {
  constructor(message: string) {
    super('file_worker_protocol', message);
  }
}

export function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidReplyError(`${what} is not an object`);
  }
  return value as Record<string, unknown>;
}

export function realPath(value: unknown, what: string): string {
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    value.length > PATH_LIMIT ||
    !value.startsWith('/') ||
    value.includes('\0') ||
    normalize(value) !== value ||
    (value.length > 1 && value.endsWith('/'))
  ) {
    throw new InvalidReplyError(`${what} is not an absolute, normalised path`);
  }
  return value;
}

export function count(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InvalidReplyError(`${what} is not a whole number of zero or more`);
  }
  return value;
}

function time(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new InvalidReplyError(`${what} is not a time`);
  return value;
}

/** The ToolError a failed reply carries, or undefined when it is not a valid failure. */
export function failureOfReply(value: unknown): ToolError | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { classification, message } = value as Record<string, unknown>;
  if (!WORKER_CLASSIFICATIONS.includes(classification as ToolErrorClassification)) return undefined;
  if (typeof message !== 'string' || message.length === 0 || message.length > MESSAGE_LIMIT) return undefined;
  if ('refusal' in value) return protectedPathFailureOfReply(value as Record<string, unknown>, message);
  return new ToolError(classification as ToolErrorClassification, message);
}

export function readFileReply(result: unknown, payload: Uint8Array, ceiling: number): ReadFileOutcome {
  const fields = record(result, 'the result');
  const real = realPath(fields.real, 'real');
  switch (fields.kind) {
    case 'directory':
    case 'special':
    case 'over_ceiling':
      if (payload.length > 0) throw new InvalidReplyError(`a ${fields.kind} result carries bytes`);
      return { kind: fields.kind, real };
    case 'file': {
      if (payload.length > ceiling) {
        throw new InvalidReplyError(`it sent ${payload.length} bytes, more than the ${ceiling} asked for`);
      }
      const mode = count(fields.mode, 'mode');
      if (mode > 0o7777) throw new InvalidReplyError('mode has more than permission bits');
      return { kind: 'file', real, bytes: payload, mode, mtimeMs: time(fields.mtimeMs, 'mtimeMs') };
    }
    default:
      throw new InvalidReplyError('kind is none of file, directory, special, over_ceiling');
  }
}

export function writeTargetReply(result: unknown): WriteTarget {
  const fields = record(result, 'the result');
  if (fields.kind !== 'missing' && fields.kind !== 'file') {
    throw new InvalidReplyError('kind is neither missing nor file');
  }
  return { real: realPath(fields.real, 'real'), kind: fields.kind };
}

export function replacedFileReply(result: unknown, written: number): ReplacedFile {
  const fields = record(result, 'the result');
  const size = count(fields.size, 'size');
  if (size !== written) throw new InvalidReplyError(`size is ${size}, but ${written} bytes were sent`);
  return { real: realPath(fields.real, 'real'), size, mtimeMs: time(fields.mtimeMs, 'mtimeMs') };
}

function entryName(value: unknown): string {
  if (
    typeof value !== 'string' ||
    value.length === 0 ||
    Buffer.byteLength(value) > NAME_LIMIT ||
    value === '.' ||
    value === '..' ||
    value.includes('/') ||
    value.includes('\0')
  ) {
    throw new InvalidReplyError('an entry name is not a name a directory can hold');
  }
  return value;
}

export function listingReply(result: unknown): DirectoryListing {
  const fields = record(result, 'the result');
  const raw = fields.entries;
  if (!Array.isArray(raw) || raw.length > ENTRY_LIMIT) {
    throw new InvalidReplyError(`entries is not a list of at most ${ENTRY_LIMIT}`);
  }
  const entries = raw.map((entry) => {
    const item = record(entry, 'an entry');
    if (!ENTRY_TYPES.includes(item.type as DirectoryEntryType)) {
      throw new InvalidReplyError('an entry type is none of file, directory, symlink, other');
    }
    return { name: entryName(item.name), type: item.type as DirectoryEntryType };
  });
  const names = new Set(entries.map((entry) => entry.name));
  if (names.size !== entries.length) throw new InvalidReplyError('an entry name comes twice');
  entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  return { real: realPath(fields.real, 'real'), entries, refused: count(fields.refused, 'refused') };
}

/** The failures of a resolution the server words itself, by their `code` (resolve-and-validate-path.ts). */
export const LOCATION_FAILURES = ['ELOOP', 'EACCES', 'EPERM', 'path_changed'] as const;
type LocationFailure = (typeof LOCATION_FAILURES)[number];

/** The error `resolveRealLocation` would have thrown here for a failure the worker met. */
function locationError(code: LocationFailure, message: string): Error {
  if (code === 'ELOOP') return new SymlinkLoopError(message);
  if (code === 'path_changed') return new PathChangedWhileResolvingError(message);
  return new MangoError(code, message);
}

/**
 * A resolution's location; a failure the worker met comes back as the error it carries (its message
 * bounded like a failed call's), so the caller words it as if the resolution had run here.
 */
export function locationReply(result: unknown): RealLocation {
  const fields = record(result, 'the result');
  if (fields.outcome === 'failed') {
    const { code, message } = fields;
    if (!LOCATION_FAILURES.includes(code as LocationFailure)) {
      throw new InvalidReplyError(`code is none of ${LOCATION_FAILURES.join(', ')}`);
    }
    if (typeof message !== 'string' || message.length === 0 || message.length > MESSAGE_LIMIT) {
      throw new InvalidReplyError('a failure carries no message of at most 16 KiB');
    }
    throw locationError(code as LocationFailure, message);
  }
  if (fields.outcome !== 'located') throw new InvalidReplyError('outcome is neither located nor failed');
  if (typeof fields.exists !== 'boolean') throw new InvalidReplyError('exists is not true or false');
  return { real: realPath(fields.real, 'real'), exists: fields.exists };
}

// The workspace files routes' operations.

/** The largest time a `Date` holds (ms from the epoch either way): a listing turns each into ISO 8601. */
const DATE_LIMIT_MS = 8.64e15;
const IDENTITY = /^\d{1,20}:\d{1,20}$/;

export function noBytes(payload: Uint8Array, what: string): void {
  if (payload.length > 0) throw new InvalidReplyError(`the ${what} result carries bytes`);
}

function folderEntry(value: unknown): FolderEntry {
  const item = record(value, 'an entry');
  if (!ENTRY_TYPES.includes(item.type as DirectoryEntryType)) {
    throw new InvalidReplyError('an entry type is none of file, directory, symlink, other');
  }
  const entry: FolderEntry = { name: entryName(item.name), type: item.type as DirectoryEntryType };
  if (item.size !== undefined) {
    if (entry.type !== 'file') throw new InvalidReplyError('an entry that is not a file has a size');
    entry.size = count(item.size, 'an entry size');
  }
  if (item.mtimeMs !== undefined) {
    const mtimeMs = time(item.mtimeMs, 'an entry mtimeMs');
    if (Math.abs(mtimeMs) > DATE_LIMIT_MS) throw new InvalidReplyError('an entry mtimeMs is not a date');
    entry.mtimeMs = mtimeMs;
  }
  return entry;
}

export function folderListingReply(
  result: unknown,
  payload: Uint8Array,
  limit: number,
): FolderListingOutcome {
  const fields = record(result, 'the result');
  noBytes(payload, 'listing');
  switch (fields.kind) {
    case 'refused':
    case 'not_directory':
      return { kind: fields.kind };
    case 'directory': {
      const raw = fields.entries;
      if (!Array.isArray(raw) || raw.length > limit) {
        throw new InvalidReplyError(`entries is not a list of at most ${limit}`);
      }
      const entries = raw.map(folderEntry);
      const total = count(fields.total, 'total');
      if (entries.length !== Math.min(total, limit)) {
        throw new InvalidReplyError(
          `it sent ${entries.length} entries of ${total}, with at most ${limit} asked for`,
        );
      }
      // Strictly in folder-listing order: which entries are the first `limit` is the worker's to say only so.
      for (let index = 1; index < entries.length; index++) {
        if (compareFolderEntries(entries[index - 1] as FolderEntry, entries[index] as FolderEntry) >= 0) {
          throw new InvalidReplyError('the entries are not in folder-listing order, each name once');
        }
      }
      return {
        kind: 'directory',
        real: realPath(fields.real, 'real'),
        entries,
        total,
        refused: count(fields.refused, 'refused'),
      };
    }
    default:
      throw new InvalidReplyError('kind is none of directory, not_directory, refused');
  }
}

export function downloadReply(result: unknown, payload: Uint8Array): DownloadOutcome {
  const fields = record(result, 'the result');
  switch (fields.kind) {
    case 'refused':
    case 'directory':
    case 'special':
      noBytes(payload, fields.kind);
      return { kind: fields.kind };
    case 'file': {
      const size = count(fields.size, 'size');
      // Fewer than the file's first bytes only when it shrank between its fstat and the read.
      const most = Math.min(size, DOWNLOAD_SIGNATURE_BYTES);
      if (payload.length > most) {
        throw new InvalidReplyError(
          `it sent ${payload.length} first bytes of a file of ${size}, more than ${most}`,
        );
      }
      if (typeof fields.identity !== 'string' || !IDENTITY.test(fields.identity)) {
        throw new InvalidReplyError('identity is not a device:inode pair');
      }
      return {
        kind: 'file',
        real: realPath(fields.real, 'real'),
        size,
        signature: payload,
        identity: fields.identity,
      };
    }
    default:
      throw new InvalidReplyError('kind is none of file, directory, special, refused');
  }
}

export function rangeReply(result: unknown, payload: Uint8Array, length: number): Uint8Array {
  const fields = record(result, 'the result');
  const read = count(fields.read, 'read');
  if (read !== payload.length)
    throw new InvalidReplyError(`read is ${read}, but it sent ${payload.length} bytes`);
  if (read > length) throw new InvalidReplyError(`it sent ${read} bytes, more than the ${length} asked for`);
  return payload;
}

const FOUND = ['symlink', 'directory', 'special'] as const;

export function uploadReply(result: unknown, payload: Uint8Array, written: number): UploadOutcome {
  const fields = record(result, 'the result');
  noBytes(payload, 'upload');
  switch (fields.kind) {
    case 'refused':
    case 'not_directory':
    case 'exists':
    case 'appeared':
      return { kind: fields.kind };
    case 'missing':
      if (fields.at !== 'directory' && fields.at !== 'file') {
        throw new InvalidReplyError('at is neither directory nor file');
      }
      return { kind: 'missing', at: fields.at };
    case 'not_regular_file': {
      const found = FOUND.find((kind) => kind === fields.found);
      if (found === undefined) throw new InvalidReplyError('found is none of symlink, directory, special');
      return { kind: 'not_regular_file', found };
    }
    case 'written': {
      const size = count(fields.size, 'size');
      if (size !== written) throw new InvalidReplyError(`size is ${size}, but ${written} bytes were sent`);
      if (typeof fields.replaced !== 'boolean') throw new InvalidReplyError('replaced is not true or false');
      return { kind: 'written', real: realPath(fields.real, 'real'), size, replaced: fields.replaced };
    }
    default:
      throw new InvalidReplyError(
        'kind is none of written, not_directory, not_regular_file, exists, appeared, missing, refused',
      );
  }
}

/**
 * A refusal of the protected set the worker made (a `permission_denied` failure with `refusal`:
 * `{reason: 'protected_path', path, real, protectedPath}`, exactly), so the server can log it as its own
 * (worker-protected-path-refusal.ts); undefined when it has any other shape. The path is the call's
 * own spelling, so only bounded; the locations are absolute and normalised, the real one inside the
 * protected path. The server still checks that path is one of its own before it logs.
 */
function protectedPathFailureOfReply(
  value: Record<string, unknown>,
  message: string,
): ProtectedPathRefusedError | undefined {
  if (value.classification !== 'permission_denied' || Object.keys(value).length !== 3) return undefined;
  const refusal = value.refusal;
  if (typeof refusal !== 'object' || refusal === null || Array.isArray(refusal)) return undefined;
  const fields = refusal as Record<string, unknown>;
  if (Object.keys(fields).sort().join() !== 'path,protectedPath,real,reason') return undefined;
  if (fields.reason !== 'protected_path') return undefined;
  const { path } = fields;
  if (typeof path !== 'string' || path.length === 0 || path.length > PATH_LIMIT) return undefined;
  try {
    const real = realPath(fields.real, 'real');
    const protectedPath = realPath(fields.protectedPath, 'protectedPath');
    if (!isPathInside(real, protectedPath)) return undefined;
    return new ProtectedPathRefusedError(message, { path, real, protectedPath });
  } catch {
    return undefined;
  }
}

// A message's attachments.

export function inspectedFileReply(result: unknown): InspectedFile {
  const fields = record(result, 'the result');
  switch (fields.kind) {
    case 'missing':
      return { kind: 'missing' };
    case 'file':
    case 'directory':
    case 'special':
      return { kind: fields.kind, real: realPath(fields.real, 'real') };
    default:
      throw new InvalidReplyError('kind is none of missing, file, directory, special');
  }
}
