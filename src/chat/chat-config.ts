/**
 * Chat settings the server reads from its environment: `MANGO_MAX_TOOL_ITERATIONS` (model calls per
 * turn, default 25) and `MANGO_TURN_LEASE_MS` (how long a turn's lease lasts without renewal: how long a
 * chat stays busy after its instance died, and how long a paused instance may keep its turn; default
 * 30 000). Invalid values stop the server at startup with a message, never silently default. Where a
 * chat may work is not configured here: workspaces belong to users (`src/workspaces/`).
 */
import { DEFAULT_MAX_TOOL_ITERATIONS } from './turn.ts';
import { DEFAULT_TURN_LEASE_MILLISECONDS } from './turn-timing.ts';

export const MAX_TOOL_ITERATIONS_CEILING = 1000;
/** Bounds of `MANGO_TURN_LEASE_MS`: long enough to renew over a slow database, short enough to recover. */
export const MIN_TURN_LEASE_MILLISECONDS = 300;
export const MAX_TURN_LEASE_MILLISECONDS = 600_000;

export interface ChatConfig {
  maxToolIterations: number;
  turnLeaseMilliseconds: number;
}

/** An integer setting within bounds, or the default when unset; throws naming the variable otherwise. */
function readBoundedInteger(
  environment: Readonly<Record<string, string | undefined>>,
  name: string,
  defaultValue: number,
  minimum: number,
  maximum: number,
  unit: string,
): number {
  const raw = environment[name]?.trim();
  if (!raw) return defaultValue;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < minimum || value > maximum) {
    throw new Error(`${name} must be an integer from ${minimum} to ${maximum}${unit}; got "${raw}".`);
  }
  return value;
}

export function readChatConfig(
  environment: Readonly<Record<string, string | undefined>> = process.env,
): ChatConfig {
  return {
    maxToolIterations: readBoundedInteger(
      environment,
      'MANGO_MAX_TOOL_ITERATIONS',
      DEFAULT_MAX_TOOL_ITERATIONS,
      1,
      MAX_TOOL_ITERATIONS_CEILING,
      '',
    ),
    turnLeaseMilliseconds: readBoundedInteger(
      environment,
      'MANGO_TURN_LEASE_MS',
      DEFAULT_TURN_LEASE_MILLISECONDS,
      MIN_TURN_LEASE_MILLISECONDS,
      MAX_TURN_LEASE_MILLISECONDS,
      ' (milliseconds)',
    ),
  };
}
