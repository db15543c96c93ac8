/**
 * Result paths, the two-way path convention: every path in a result list is relative to the call's
 * working directory, whatever search root the call named; it is absolute when the match lies outside the
 * working directory or when the caller asked for absolute paths (glob's `absolute` setting). A reported
 * path passed back into another tool reaches the same file.
 */
import { relative, sep } from 'node:path';
import { isPathInside } from '../access/reachable-set.ts';
import type { ToolContext } from '../types.ts';

export interface ResultPathAnchor {
  /** The call's real working directory; undefined reports every path absolute. */
  workingDirectory: string | undefined;
  /** Always report absolute paths. */
  absolute?: boolean;
}

/** The anchor of a call's result paths: its real working directory (walks run on real paths). */
export function getResultPathAnchor(context: ToolContext, absolute = false): ResultPathAnchor {
  return { workingDirectory: context.reachable.workingDirectory, absolute };
}

/** Re-anchors an absolute path for a result list. */
export function toResultPath(absolutePath: string, anchor: ResultPathAnchor): string {
  const workingDirectory = anchor.workingDirectory;
  if (anchor.absolute || workingDirectory === undefined) return absolutePath;
  if (!isPathInside(absolutePath, workingDirectory)) return absolutePath;
  if (absolutePath === workingDirectory) return '.';
  return relative(workingDirectory, absolutePath).split(sep).join('/');
}

/**
 * A re-anchoring function for many paths under one search root: `relativeToRoot` is a path below `root`
 * as a walker yields it. Computes the common part once.
 */
export function createResultPathMapper(
  root: string,
  anchor: ResultPathAnchor,
): (relativeToRoot: string) => string {
  const workingDirectory = anchor.workingDirectory;
  const rootWithSlash = root.endsWith('/') ? root : `${root}/`;
  if (anchor.absolute || workingDirectory === undefined || !isPathInside(root, workingDirectory)) {
    return (relativeToRoot) => (relativeToRoot === '' ? root : rootWithSlash + relativeToRoot);
  }
  const prefix = root === workingDirectory ? '' : `${relative(workingDirectory, root).split(sep).join('/')}/`;
  return (relativeToRoot) => (relativeToRoot === '' ? prefix.slice(0, -1) || '.' : prefix + relativeToRoot);
}
