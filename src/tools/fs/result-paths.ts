/**
 * Result paths (spec: "Built-in Tools", the two-way path convention): every path in a result list is
 * relative to the chat working directory, whatever search root the call named; it is absolute when no
 * working directory is bound, when the match lies outside it, or when the caller asked for absolute paths
 * (glob's `absolute` setting). A reported path passed back into another tool reaches the same file.
 */
import { relative, sep } from 'node:path';
import type { ToolContext } from '../types.ts';
import { isPathInside, type PathPolicy } from './path-policy.ts';

export interface ResultPathAnchor {
  /** The chat's bound working directory (absolute), or undefined when none is bound. */
  workingDirectory: string | undefined;
  /** Always report absolute paths. */
  absolute?: boolean;
}

/**
 * The anchor of a call's result paths: the real working directory when the chat binds one (walks run on
 * real paths), none otherwise, so results are absolute exactly when the spec says.
 */
export function getResultPathAnchor(
  context: ToolContext,
  policy: PathPolicy,
  absolute = false,
): ResultPathAnchor {
  return {
    workingDirectory: context.workingDirectory === undefined ? undefined : policy.workingDirectoryReal,
    absolute,
  };
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
