/**
 * Chat settings the server reads from its environment (issue 7): `MANGO_WORKSPACE_ROOTS` (directories
 * a chat may bind, default the server user's home) and `MANGO_MAX_TOOL_ITERATIONS` (model calls per
 * turn, default 25), and `MANGO_TURN_LEASE_MS` (how long a turn's lease lasts without renewal: how
 * long a chat stays busy after its instance died, and how long a paused instance may keep its turn;
 * default 30 000). Invalid values stop the server at startup with a message, never silently default.
 */
import { homedir } from 'node:os';
import { DEFAULT_MAX_TOOL_ITERATIONS } from './turn.ts';
import { DEFAULT_TURN_LEASE_MILLISECONDS } from './turn-timing.ts';
import { parseWorkspaceRoots } from './workspace-roots.ts';

export const MAX_TOOL_ITERATIONS_CEILING = 1000;
/** Bounds of `MANGO_TURN_LEASE_MS`: long enough to renew over a slow database, short enough to recover. */
export const MIN_TURN_LEASE_MILLISECONDS = 300;
export const MAX_TURN_LEASE_MILLISECONDS = 600_000;

export interface ChatConfig {
  workspaceRoots: string[];
  maxToolIterations: number;
  homeDirectory: string;
  turnLeaseMilliseconds: number;
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
  const rawLease = environment.MANGO_TURN_LEASE_MS?.trim();
  let turnLeaseMilliseconds = DEFAULT_TURN_LEASE_MILLISECONDS;
  if (rawLease) {
    turnLeaseMilliseconds = Number(rawLease);
    if (
      !/^\d+$/.test(rawLease) ||
      turnLeaseMilliseconds < MIN_TURN_LEASE_MILLISECONDS ||
      turnLeaseMilliseconds > MAX_TURN_LEASE_MILLISECONDS
    ) {
      throw new Error(
        `MANGO_TURN_LEASE_MS must be an integer from ${MIN_TURN_LEASE_MILLISECONDS} to ${MAX_TURN_LEASE_MILLISECONDS} (milliseconds); got "${rawLease}".`,
      );
    }
  }
  return {
    turnLeaseMilliseconds,
    workspaceRoots: parseWorkspaceRoots(environment.MANGO_WORKSPACE_ROOTS, homeDirectory),
    maxToolIterations,
    homeDirectory,
  };
}
