/**
 * Chat settings the server reads from its environment (issue 7): `MANGO_WORKSPACE_ROOTS` (directories
 * a chat may bind, default the server user's home) and `MANGO_MAX_TOOL_ITERATIONS` (model calls per
 * turn, default 25). Invalid values stop the server at startup with a message, never silently default.
 */
import { homedir } from 'node:os';
import { DEFAULT_MAX_TOOL_ITERATIONS } from './turn.ts';
import { parseWorkspaceRoots } from './workspace-roots.ts';

export const MAX_TOOL_ITERATIONS_CEILING = 1000;

export interface ChatConfig {
  workspaceRoots: string[];
  maxToolIterations: number;
  homeDirectory: string;
}

export function readChatConfig(
  environment: Readonly<Record<string, string | undefined>> = process.env,
  homeDirectory: string = homedir(),
): ChatConfig {
  const rawIterations = environment.MANGO_MAX_TOOL_ITERATIONS?.trim();
  let maxToolIterations = DEFAULT_MAX_TOOL_ITERATIONS;
  if (rawIterations) {
    maxToolIterations = Number(rawIterations);
    if (
      !/^\d+$/.test(rawIterations) ||
      maxToolIterations < 1 ||
      maxToolIterations > MAX_TOOL_ITERATIONS_CEILING
    ) {
      throw new Error(
        `MANGO_MAX_TOOL_ITERATIONS must be an integer from 1 to ${MAX_TOOL_ITERATIONS_CEILING}; got "${rawIterations}".`,
      );
    }
  }
  return {
    workspaceRoots: parseWorkspaceRoots(environment.MANGO_WORKSPACE_ROOTS, homeDirectory),
    maxToolIterations,
    homeDirectory,
  };
}
