/**
 * A file worker's grep reply, judged as untrusted input like every reply (file-worker-replies.ts): a
 * fresh outcome of exactly `GrepOutcome`'s shape, bounded by what the call asked for, or the reason it
 * is not one (which stops the worker and fails the call). The grep tool then decides every file it
 * names again with the server's own policy.
 */
import { isPathInside } from '../tools/access/reachable-set.ts';
import {
  GREP_TOO_LARGE_NAMED,
  GREP_UNSEARCHED_NAMED,
  type GrepFileOutcome,
  type GrepOutcome,
} from '../tools/fs/file-operations.ts';
import type { FileSearchStatus } from '../tools/fs/grep/search-file.ts';
import { lineCutMarker, MAX_LINE_CHARACTERS } from '../tools/output/cut-notices.ts';
import { count, ENTRY_LIMIT, InvalidReplyError, noBytes, realPath, record } from './file-worker-replies.ts';

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
