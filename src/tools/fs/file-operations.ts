/**
 * The file work of the file tools, as one interface: what read_file, write_file, edit_file and
 * list_directory ask of the filesystem, in requests and results that carry data only, so the work can
 * run where the tenant's own identity bounds it. The tools keep everything else: their arguments, their
 * wording, the chat's freshness ledger and, as a second wall, the call's path policy applied again to
 * every location a result names.
 *
 * The workspace files routes (the files panel's folder listings, downloads and uploads) ask for their
 * file work through the same interface, with operations of their own whose outcomes carry what the
 * routes word as HTTP answers.
 *
 * Two implementations: in this process (in-process-file-operations.ts: operator mode, tests, a server
 * without a sandbox) and a worker in the user's own sandbox (src/file-worker/), which runs the
 * in-process one there. A remote sandbox service would implement the same interface.
 *
 * Guarantees every implementation keeps:
 * - Each request resolves the model's path itself (`resolveAndValidatePath`) and decides it with the
 *   call's access policy before anything is opened; what it opens is opened by object with links
 *   refused (see docs/isolation.md).
 * - A failure is thrown as a classified ToolError whose message names the path as the model wrote it.
 * - Nothing here touches the freshness ledger: a result says what was read or written, and the tool
 *   records it.
 */
import type { DirectoryEntryType } from '../../contracts/tool-result-view.ts';
import type { AccessNeed } from '../access/access-policy.ts';
import type { RealLocation } from '../access/real-location.ts';
import type { GrepOptions } from './grep/grep-options.ts';
import type { FileSearchOutcome } from './grep/search-file.ts';

/** The entry kinds of a listing: the `directory_listing` result view's own. */
export type { DirectoryEntryType };

export interface ReadFileRequest {
  /** The model's path argument. */
  path: string;
  /** `write` when the file is read to be replaced: its location must be read-write. */
  need: AccessNeed;
  /** Most bytes accepted; a file that yields more is `over_ceiling`. */
  ceiling: number;
  /** Verb for operating-system errors on the path ("read", "open"). */
  action: string;
}

/** A whole regular file, read through the descriptor that opened it. */
export interface FileContent {
  kind: 'file';
  /** Real location of the opened descriptor. */
  real: string;
  bytes: Uint8Array;
  /** Permission bits of the opened file. */
  mode: number;
  mtimeMs: number;
}

/** What a read found: the file, or why there is nothing to read (the tool words the refusal). */
export type ReadFileOutcome =
  | FileContent
  | { kind: 'directory'; real: string }
  | { kind: 'special'; real: string }
  | { kind: 'over_ceiling'; real: string };

/** Where a write of `path` would land and what is there now. */
export interface WriteTarget {
  /** Real location the write is decided at. */
  real: string;
  /** `missing`: nothing there yet; `file`: a regular file (anything else is refused with a ToolError). */
  kind: 'missing' | 'file';
}

export interface ReplaceFileRequest {
  /** Real target path, decided already (a `WriteTarget.real` or a `FileContent.real`). */
  target: string;
  data: Uint8Array;
  /** Permission bits of the file replaced; undefined creates the file, which must not exist then. */
  mode: number | undefined;
  /** How messages name the path (the model's spelling). */
  shown: string;
}

export interface ReplacedFile {
  /** Real path of the file written. */
  real: string;
  size: number;
  mtimeMs: number;
}

export interface DirectoryListing {
  /** Real location of the listed directory. */
  real: string;
  /** The admitted entries, sorted by name. */
  entries: { name: string; type: DirectoryEntryType }[];
  /** How many entries the policy left out. */
  refused: number;
}

// The workspace files routes (src/http/workspace-files/): a folder listing, a download in ranges, an
// upload. A person acts on their own workspace there, so a path the access policy refuses is not an
// error to word but one fixed answer (`RefusedPath`); every other refusal is a classified ToolError.

/** The access policy refused the path, or what was opened there, for reading: it lies outside the request's reach. */
export interface RefusedPath {
  kind: 'refused';
}

/** One entry of a folder listing, described through the held directory without following it. */
export interface FolderEntry {
  name: string;
  type: DirectoryEntryType;
  /** Bytes, for a regular file. */
  size?: number;
  /** Absent when the entry vanished while being listed. */
  mtimeMs?: number;
}

export interface FolderListingRequest {
  path: string;
  /** Most entries returned: the first ones in folder-listing order (folders first, then by name). */
  limit: number;
}

export type FolderListingOutcome =
  | {
      kind: 'directory';
      /** Real location of the listed directory. */
      real: string;
      /** The first `limit` admitted entries, folders first, then by name. */
      entries: FolderEntry[];
      /** How many entries were admitted in all. */
      total: number;
      /** How many entries the policy left out. */
      refused: number;
    }
  | { kind: 'not_directory' }
  | RefusedPath;

/** Bytes enough to recognise every image type a download is served as (WebP's marker ends at byte 12). */
export const DOWNLOAD_SIGNATURE_BYTES = 16;

/** What a download found at its path: a regular file to read in ranges, or why there is none. */
export type DownloadOutcome =
  | {
      kind: 'file';
      /** Real location of the opened file. */
      real: string;
      /** Its size when it was opened: what the download sends. */
      size: number;
      /** Its first bytes (at most `DOWNLOAD_SIGNATURE_BYTES`), for the served type. */
      signature: Uint8Array;
      /** `device:inode` of the opened file: each range is read from that object only. */
      identity: string;
    }
  | { kind: 'directory' }
  | { kind: 'special' }
  | RefusedPath;

export interface ReadRangeRequest {
  /** A `DownloadOutcome.real`. */
  real: string;
  /** Its `DownloadOutcome.identity`: another object at `real` fails the read as a changed path. */
  identity: string;
  offset: number;
  /** Most bytes returned; fewer only at the end of the file. */
  length: number;
  /** How messages name the path (the request's spelling). */
  shown: string;
}

export interface UploadFileRequest {
  /** The directory, as the request names it. */
  directory: string;
  /** The new file's name in it (checked by the route: a name a directory can hold). */
  name: string;
  /** Whether an existing regular file may be replaced. */
  overwrite: boolean;
  data: Uint8Array;
  /** How messages name the file (the request's spelling). */
  shown: string;
}

export type UploadOutcome =
  | {
      kind: 'written';
      /** Real path of the file written. */
      real: string;
      size: number;
      /** True when an existing file was replaced. */
      replaced: boolean;
    }
  | { kind: 'not_directory' }
  | { kind: 'not_regular_file'; found: 'symlink' | 'directory' | 'special' }
  /** A file is there and `overwrite` was not given. */
  | { kind: 'exists' }
  /** A file appeared at the name while the new one was written; it was left alone. */
  | { kind: 'appeared' }
  /** Nothing exists at the directory, or the file's path broke while it was written. */
  | { kind: 'missing'; at: 'directory' | 'file' }
  | RefusedPath;

// A message's attachments (src/chat/message-attachments.ts).

export interface InspectFileRequest {
  /** The path as the user gave it. */
  path: string;
  /** How messages name the argument (`attachments[0].path`). */
  argument: string;
}

/** What is at an inspected path: nothing, or an object of a kind at its real location. */
export type InspectedFile = { kind: 'missing' } | { kind: 'file' | 'directory' | 'special'; real: string };

export interface FileOperations {
  /** Resolves `request.path`, decides it for `request.need` and reads the whole regular file. */
  readFile(request: ReadFileRequest): Promise<ReadFileOutcome>;
  /** Resolves `path` for writing and says what is there; a link, directory or special file is refused. */
  inspectWriteTarget(path: string): Promise<WriteTarget>;
  /** Replaces (or creates, with missing parents) the file at a decided target, atomically. */
  replaceFile(request: ReplaceFileRequest): Promise<ReplacedFile>;
  /** Resolves `path` and lists the directory there through its descriptor. */
  listDirectory(path: string): Promise<DirectoryListing>;
  /**
   * The real location of an absolute, lexically normalised path, undecided (the caller decides it):
   * how the server's path resolver and access policy learn where a tenant's name leads without
   * following it themselves (access/location-resolution.ts). Fails as `resolveRealLocation` does.
   */
  resolveLocation(absolute: string): Promise<RealLocation>;

  // The workspace files routes.
  /** Resolves `request.path` and lists the folder there, entries described, in folder-listing order. */
  listFolder(request: FolderListingRequest): Promise<FolderListingOutcome>;
  /** Resolves `path`, opens it by object, and says what is there; a file's bytes come by `readRange`. */
  openDownload(path: string): Promise<DownloadOutcome>;
  /** Reopens a download's file by object, links refused, and reads one range of it. */
  readRange(request: ReadRangeRequest): Promise<Uint8Array>;
  /** Writes an uploaded file into an existing directory, atomically, never over a link or a folder. */
  uploadFile(request: UploadFileRequest): Promise<UploadOutcome>;

  // A message's attachments.
  /** Resolves `request.path` for reading, opens it by object and says what kind of object is there. */
  inspectFile(request: InspectFileRequest): Promise<InspectedFile>;
  // glob.
  /** Resolves `request.cwd`, decides it, and walks it for the pattern's matches the policy admits. */
  globFiles(request: GlobRequest): Promise<GlobOutcome>;
  // grep.
  /**
   * Resolves `request.path`, decides it, and searches the file there or walks the directory there
   * (links neither followed nor yielded, each candidate decided by the call's policy), until the
   * request's maxResults. Stopped by the call's signal: the search ends and the call fails with the
   * signal's reason.
   */
  grepFiles(request: GrepFilesRequest): Promise<GrepOutcome>;
}

// glob: the paths below a directory that match a pattern.

export interface GlobRequest {
  /** The model's pattern (`Bun.Glob` syntax; a leading `!` lists what does not match the rest). */
  pattern: string;
  /** The model's `cwd` argument (`.` when it gave none): resolved and decided by the operation. */
  cwd: string;
  /** Whether `*` and `**` match names that start with a dot. */
  dot: boolean;
  /** Most matches returned; more existing makes the outcome `truncated`. */
  maxResults: number;
}

export interface GlobOutcome {
  /** Real location of the cwd the pattern was evaluated from. */
  real: string;
  /**
   * Real location of the directory the matches were found below: where the pattern's leading literal
   * segments lead from `real` (for a pattern without glob syntax, the directory holding the one path it
   * names). A match is reported under the pattern's own spelling of that directory (`globStart`).
   */
  start: string;
  /** Real locations of the admitted matches (each below `start`), in walk order, at most `maxResults`. */
  paths: string[];
  /** True when more than `maxResults` matched. */
  truncated: boolean;
  /** How many matches the policy left out. */
  refused: number;
}

// grep (grep/grep-files.ts).

export interface GrepFilesRequest {
  /** The model's path argument: a file or a directory. */
  path: string;
  /** What the grep tool built from the model's pattern, glob and case and the user's limits. */
  options: GrepOptions;
}

/**
 * One file of a search's outcome: matches (at most maxMatchesPerFile, each line without a trailing CR
 * and cut as output/cut-notices.ts's `cutLine` cuts it), or why it was not searched.
 */
export type GrepFileOutcome = FileSearchOutcome;

/** Files skipped for size that an outcome names; the rest are counted. */
export const GREP_TOO_LARGE_NAMED = 5;
/** Lines the JavaScript engine gave up on that an outcome names per file (one more than the tool shows). */
export const GREP_UNSEARCHED_NAMED = 11;

export interface GrepOutcome {
  /** Real location of the searched path. */
  real: string;
  /** The path named a file, not a directory. */
  rootIsFile: boolean;
  /**
   * In walk order: files with matches or lines the JavaScript engine gave up on (at most
   * {@link GREP_UNSEARCHED_NAMED} of those a file), and for a file path that one file when it was
   * binary or unreadable. At most maxResults matches in all.
   */
  files: GrepFileOutcome[];
  /** Files skipped for being larger than maxFileSizeBytes: the first {@link GREP_TOO_LARGE_NAMED}, and how many. */
  tooLarge: { files: string[]; count: number };
  /** Files searched (not skipped). */
  filesScanned: number;
  /** More matching lines existed than maxResults allowed. */
  hitMaxResults: boolean;
  /** Files the call's access policy left out of the walk. */
  refused: number;
}
