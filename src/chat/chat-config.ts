/**
 * Chat settings the server reads from its environment (issue 7): `MANGO_MAX_TOOL_ITERATIONS` (model
 * calls per turn, default 25). Invalid values stop the server at startup with a message, never silently
 * default. Where a chat may work is not configured here: workspaces belong to users (`src/workspaces/`).
 */
import { DEFAULT_MAX_TOOL_ITERATIONS } from './turn.ts';

export const MAX_TOOL_ITERATIONS_CEILING = 1000;

export interface ChatConfig {
  maxToolIterations: number;
}

export function readChatConfig(
  environment: Readonly<Record<string, string | undefined>> = process.env,
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
  return { maxToolIterations };
}
