/**
 * The caller's workspaces and their files as the API sends them: the list of workspaces (each with the
 * name people see), a folder's subfolders for the folder picker, and a folder's entries for the files
 * panel.
 */

/** One of the caller's workspaces (`GET /api/workspaces`). */
export interface WorkspaceSummary {
  /** Opaque id for `/api/workspaces/:id/files`. */
  id: string;
  /** What people call it: "My workspace", a grant's folder name (the server's choice). */
  name: string;
  /** Real absolute path: what a chat's working directory and the tools' paths are made of. */
  path: string;
  access: 'read-only' | 'read-write';
  kind: 'personal' | 'granted';
}

export interface WorkspaceList {
  workspaces: WorkspaceSummary[];
  /** Whether this user may create chats that reach all their workspaces. */
  allowUnrestricted: boolean;
}

/** `GET /api/workspaces/directories?path=`: sorted subdirectory names of a folder inside a workspace. */
export interface DirectoryListing {
  path: string;
  directories: string[];
}

/** One entry of `GET /api/workspaces/:id/files`. */
export interface WorkspaceFileEntry {
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size?: number;
  modifiedAt?: string;
}

/** `GET /api/workspaces/:id/files?path=`: a directory of a workspace, folders first. */
export interface WorkspaceFileListing {
  workspace: string;
  /** Relative to the workspace root; `''` for the root. */
  path: string;
  entries: WorkspaceFileEntry[];
  omitted: number;
  truncated: boolean;
}
