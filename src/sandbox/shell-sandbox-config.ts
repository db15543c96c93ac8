/**
 * The operator's shell sandbox settings, read from the environment (declared with every other variable
 * in `config/environment-variables.ts`), and the sandbox they select:
 *
 * - `MANGO_SHELL_SANDBOX`: `bubblewrap` (default on Linux) or `off`. Anything else is refused with the
 *   accepted values; it never silently means "off".
 * - `MANGO_SHELL_PASS_ENV`: variable names passed to commands beyond the allowlist.
 * - `MANGO_SANDBOX_UID`: the uid commands run as when the server is root (default 61000).
 * - `MANGO_SANDBOX_POOL`: how many sandboxes may be built ahead of their call (default 4, 0: none).
 *
 * A setting that cannot be read leaves shell tools unavailable, with the reason, instead of failing the
 * whole server: the rest of Mango works without shells.
 */
import { type Environment, readVariable } from '../config/environment-variables.ts';
import { ToolError } from '../tools/errors.ts';
import { createBubblewrapSandbox } from './bubblewrap-sandbox.ts';
import type { ShellSandbox, ShellSandboxStatus } from './shell-sandbox.ts';
import { createUnsandboxedShell } from './unsandboxed-shell.ts';

export interface ShellSandboxConfig {
  mode: 'bubblewrap' | 'off';
  passEnv: readonly string[];
  uid: number;
  pool: number;
}

/** Reads the settings. @throws ConfigError naming the variable, what it accepts and what it got. */
export function readShellSandboxConfig(environment: Environment): ShellSandboxConfig {
  return {
    mode: readVariable(environment, 'MANGO_SHELL_SANDBOX'),
    passEnv: readVariable(environment, 'MANGO_SHELL_PASS_ENV'),
    uid: readVariable(environment, 'MANGO_SANDBOX_UID'),
    pool: readVariable(environment, 'MANGO_SANDBOX_POOL'),
  };
}

/** A sandbox that runs nothing and says why. */
export function createUnavailableShellSandbox(reason: string): ShellSandbox {
  const status: ShellSandboxStatus = { available: false, reason };
  return {
    status: () => status,
    run: async () => {
      throw new ToolError('execution_error', reason);
    },
  };
}

export interface ShellSandboxFromEnvironmentOptions {
  log?: (line: string) => void;
}

/** The sandbox the environment selects, probed; unavailable with the reason when it cannot run. */
export function createShellSandboxFromEnvironment(
  environment: Environment,
  options: ShellSandboxFromEnvironmentOptions = {},
): ShellSandbox {
  let config: ShellSandboxConfig;
  try {
    config = readShellSandboxConfig(environment);
  } catch (error) {
    return createUnavailableShellSandbox(`The shell sandbox is misconfigured: ${(error as Error).message}`);
  }
  if (config.mode === 'off') {
    return createUnsandboxedShell({ passEnv: config.passEnv, environment, log: options.log });
  }
  try {
    return createBubblewrapSandbox({
      uid: config.uid,
      pool: { maxIdle: config.pool },
      passEnv: config.passEnv,
      environment,
      log: options.log,
    });
  } catch (error) {
    return createUnavailableShellSandbox(`The shell sandbox cannot run: ${(error as Error).message}`);
  }
}
