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
  GREP_TOO_LARGE_NAMED,
  GREP_UNSEARCHED_NAMED,
  type GrepFileOutcome,
  type GrepOutcome,
  type ReadFileOutcome,
  type ReplacedFile,
  type UploadOutcome,
  type WriteTarget,
} from '../tools/fs/file-operations.ts';
import type { FileSearchStatus } from '../tools/fs/grep/search-file.ts';
import { compareFolderEntries } from '../tools/fs/list-folder.ts';
import { lineCutMarker, MAX_LINE_CHARACTERS } from '../tools/output/cut-notices.ts';

/** The classifications a worker may fail a call with: those of file work, never the server's own. */
const WORKER_CLASSIFICATIONS: readonly ToolErrorClassification[] = [
  'validation_failed',
  'permission_denied',
  'not_found',
  'quota_exceeded',
  'execution_error',
];
const MESSAGE_LIMIT = 16 * 1024;
const PATH_LIMIT = 4096;
const NAME_LIMIT = 255;
const ENTRY_LIMIT = 1_000_000;
const ENTRY_TYPES: readonly DirectoryEntryType[] = ['file', 'directory', 'symlink', 'other'];

/** A reply's result that breaks its operation's shape. */
export class InvalidReplyError extends MangoError {
  constructor(message: string) {
    super('file_worker_protocol', message);
  }
}

function record(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidReplyError(`${what} is not an object`);
  }
  return value as Record<string, unknown>;
}

function realPath(value: unknown, what: string): string {
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

function count(value: unknown, what: string): number {
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

function noBytes(payload: Uint8Array, what: string): void {
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

// grep.

/** Longest line text a grep reply may carry: a line cut at MAX_LINE_CHARACTERS with its marker. */
const GREP_TEXT_LIMIT = MAX_LINE_CHARACTERS + lineCutMarker(Number.MAX_SAFE_INTEGER).length;
const GREP_FILE_STATUSES: readonly FileSearchStatus[] = ['searched', 'binary', 'unreadable'];

function flag(value: unknown, what: string): boolean {
  if (typeof value !== 'boolean') throw new InvalidReplyError(`${what} is not true or false`);
  return value;
}

function list(value: unknown, limit: number, what: string): unknown[] {
  if (!Array.isArray(value) || value.length > limit) {
    throw new InvalidReplyError(`${what} is not a list of at most ${limit}`);
  }
  return value;
}

function lineNumber(value: unknown, what: string): number {
  if (count(value, what) < 1) throw new InvalidReplyError(`${what} is not a line number`);
  return value as number;
}

/** A file a search names: the searched file itself, or one strictly below the searched directory. */
function searchedFile(value: unknown, real: string, rootIsFile: boolean): string {
  const file = realPath(value, 'a file');
  if (rootIsFile ? file !== real : file === real || !isPathInside(file, real)) {
    throw new InvalidReplyError(`a file lies outside the searched ${rootIsFile ? 'file' : 'directory'}`);
  }
  return file;
}

function grepFileOutcome(
  value: unknown,
  real: string,
  rootIsFile: boolean,
  maxMatchesPerFile: number,
): GrepFileOutcome {
  const item = record(value, 'a file outcome');
  const file = searchedFile(item.file, real, rootIsFile);
  const status = item.status as FileSearchStatus;
  if (!GREP_FILE_STATUSES.includes(status)) {
    throw new InvalidReplyError('a file status is none of searched, binary, unreadable');
  }
  const matches = list(item.matches, maxMatchesPerFile, 'matches').map((match) => {
    const fields = record(match, 'a match');
    const text = fields.text;
    if (typeof text !== 'string' || text.length > GREP_TEXT_LIMIT || text.includes('\n')) {
      throw new InvalidReplyError(`a match text is not one line of at most ${GREP_TEXT_LIMIT} characters`);
    }
    return { line: lineNumber(fields.line, 'a match line'), text };
  });
  const unsearchedLines = list(item.unsearchedLines, GREP_UNSEARCHED_NAMED, 'unsearchedLines').map((line) =>
    lineNumber(line, 'an unsearched line'),
  );
  const more = flag(item.more, 'more');
  if (status !== 'searched' && (matches.length > 0 || unsearchedLines.length > 0 || more)) {
    throw new InvalidReplyError(`a ${status} file has matches`);
  }
  // In a directory, only files with something to say are named (run-grep-search.ts).
  if (!rootIsFile && (status !== 'searched' || (matches.length === 0 && unsearchedLines.length === 0))) {
    throw new InvalidReplyError('a file of a directory search has nothing to report');
  }
  return { file, status, matches, more, unsearchedLines };
}

/**
 * A search's outcome, bounded by what was asked: at most `maxResults` matches in all, at most
 * `maxMatchesPerFile` a file, every file where the search could have found it, each named once.
 */
export function grepReply(
  result: unknown,
  payload: Uint8Array,
  limits: { maxResults: number; maxMatchesPerFile: number },
): GrepOutcome {
  noBytes(payload, 'grep');
  const fields = record(result, 'the result');
  const real = realPath(fields.real, 'real');
  const rootIsFile = flag(fields.rootIsFile, 'rootIsFile');
  const files = list(fields.files, rootIsFile ? 1 : ENTRY_LIMIT, 'files').map((item) =>
    grepFileOutcome(item, real, rootIsFile, limits.maxMatchesPerFile),
  );
  const matches = files.reduce((total, outcome) => total + outcome.matches.length, 0);
  if (matches > limits.maxResults) {
    throw new InvalidReplyError(`it names ${matches} matches, more than the ${limits.maxResults} asked for`);
  }
  const tooLargeFields = record(fields.tooLarge, 'tooLarge');
  const tooLarge = {
    files: list(tooLargeFields.files, rootIsFile ? 1 : GREP_TOO_LARGE_NAMED, 'tooLarge.files').map((file) =>
      searchedFile(file, real, rootIsFile),
    ),
    count: count(tooLargeFields.count, 'tooLarge.count'),
  };
  if (
    tooLarge.count < tooLarge.files.length ||
    (tooLarge.count > tooLarge.files.length && tooLarge.files.length < GREP_TOO_LARGE_NAMED)
  ) {
    throw new InvalidReplyError('tooLarge.count does not fit the files it names');
  }
  const named = [...files.map((outcome) => outcome.file), ...tooLarge.files];
  if (new Set(named).size !== named.length) throw new InvalidReplyError('a file is named twice');
  const filesScanned = count(fields.filesScanned, 'filesScanned');
  if (filesScanned < files.filter((outcome) => outcome.status === 'searched').length) {
    throw new InvalidReplyError('filesScanned is fewer than the files searched it names');
  }
  const refused = count(fields.refused, 'refused');
  if (rootIsFile && (files.length + tooLarge.count !== 1 || refused !== 0)) {
    throw new InvalidReplyError('a file search names other than its one file');
  }
  return {
    real,
    rootIsFile,
    files,
    tooLarge,
    filesScanned,
    hitMaxResults: flag(fields.hitMaxResults, 'hitMaxResults'),
    refused,
  };
}
