/**
 * The protected set, assembled in one place: what no tool call of any user may reach, whatever its
 * workspaces say. The data directory (database, WAL, images, everything), the installation directory
 * (code, `node_modules`, the built web app), the built web app when it is served from elsewhere,
 * `/proc`, `/sys`, `/dev`, and the workspaces directory (every user's personal workspace; a user's own
 * one is the single exception, see `reachable-set.ts`). Paths are real, so a link cannot hide one.
 */
import { realpathSync } from 'node:fs';

/** One protected directory and what it is, for refusal messages. */
export interface ProtectedPath {
  /** Real absolute path. */
  path: string;
  /** e.g. "the server's data directory". */
  what: string;
}

export interface ProtectedPathsInput {
  dataDirectory: string;
  installationDirectory: string;
  workspacesDirectory: string;
  /** The built web app's directory, when configured outside the installation directory. */
  webDirectory?: string;
}

function realOrAsGiven(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // Not there (yet): protect the path as named, which is what a later creation will use.
    return path;
  }
}

/** The protected set as real paths with their descriptions, without duplicates. */
export function assembleProtectedPaths(input: ProtectedPathsInput): ProtectedPath[] {
  const candidates: ProtectedPath[] = [
    { path: input.dataDirectory, what: "the server's data directory (database, images)" },
    { path: input.installationDirectory, what: "the server's installation directory (code, web app)" },
    { path: input.workspacesDirectory, what: "the workspaces directory (every user's personal workspace)" },
    ...(input.webDirectory === undefined
      ? []
      : [{ path: input.webDirectory, what: 'the web app the server serves' }]),
    { path: '/proc', what: "the kernel's process view" },
    { path: '/sys', what: "the kernel's system view" },
    { path: '/dev', what: 'the device directory' },
  ];
  const seen = new Set<string>();
  const result: ProtectedPath[] = [];
  for (const candidate of candidates) {
    const path = realOrAsGiven(candidate.path);
    if (seen.has(path)) continue;
    seen.add(path);
    result.push({ path, what: candidate.what });
  }
  return result;
}
