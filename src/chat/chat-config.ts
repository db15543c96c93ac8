/**
 * Chat settings the server reads from its environment: `MANGO_MAX_TOOL_ITERATIONS` (model calls per
 * turn), `MANGO_TURN_LEASE_MS` (how long a turn's lease lasts without renewal: how long a chat stays
 * busy after its instance died, and how long a paused instance may keep its turn) and
 * `MANGO_USER_MAX_TURNS` (how many turns one user may run at once, across chats and instances). Their
 * defaults and bounds are declared with every other variable in `config/environment-variables.ts`; an
 * invalid value stops the server at startup with a message, never silently defaults. Where a chat may
 * work is not configured here: workspaces belong to users (`src/workspaces/`).
 */
import { type Environment, readVariable } from '../config/environment-variables.ts';
import { processEnvironment } from '../config/process-environment.ts';

export interface ChatConfig {
  maxToolIterations: number;
  turnLeaseMilliseconds: number;
  userMaxTurns: number;
}

/** @throws ConfigError naming a malformed variable. */
export function readChatConfig(environment: Environment = processEnvironment()): ChatConfig {
  return {
    maxToolIterations: readVariable(environment, 'MANGO_MAX_TOOL_ITERATIONS'),
    turnLeaseMilliseconds: readVariable(environment, 'MANGO_TURN_LEASE_MS'),
    userMaxTurns: readVariable(environment, 'MANGO_USER_MAX_TURNS'),
  };
}
