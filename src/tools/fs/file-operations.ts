/**
 * The file work of the file tools, as one interface: what read_file, write_file, edit_file and
 * list_directory ask of the filesystem, in requests and results that carry data only, so the work can
 * run where the tenant's own identity bounds it. The tools keep everything else: their arguments, their
 * wording, the chat's freshness ledger and, as a second wall, the call's path policy applied again to
 * every location a result names.
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
}
