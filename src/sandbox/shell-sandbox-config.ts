/**
 * The operator's shell sandbox settings, read from the environment (declared with every other variable
 * in `config/environment-variables.ts`), and the sandbox they select:
 *
 * - `MANGO_SHELL_SANDBOX`: `bubblewrap` (default on Linux) or `off`. Anything else is refused with the
 *   accepted values; it never silently means "off".
 * - `MANGO_SHELL_PASS_ENV`: variable names passed to commands beyond the allowlist.
 * - `MANGO_SANDBOX_UID_BASE`, `MANGO_SANDBOX_UID_COUNT`: the range each user's uid comes from when the
 *   server is root (sandbox-id-range.ts). A range that shares an id with the host's accounts, their
 *   subordinate ranges or the uid of earlier versions (`MANGO_SANDBOX_UID`, which
 *   `mango workspace migrate-owners` re-owns from) is refused with the ids it shares.
 * - `MANGO_SANDBOX_POOL`: how many sandboxes may be built ahead of their call (default 4, 0: none).
 * - `MANGO_SANDBOX_USER_MEMORY`: the memory one user's sandboxes may hold together, where the host has
 *   a memory cgroup hierarchy (user-memory-cgroups.ts; default 2 GiB).
 *
 * A setting that cannot be read leaves shell tools unavailable, with the reason, instead of failing the
 * whole server: the rest of Mango works without shells.
 */

import { readFileSync } from 'node:fs';
import { type Environment, readVariable } from '../config/environment-variables.ts';
import { ToolError } from '../tools/errors.ts';
import { createBubblewrapSandbox } from './bubblewrap-sandbox.ts';
import { hostIdUses, rangeConflicts, rangeProblem, type SandboxIdRange } from './sandbox-id-range.ts';
import type { SandboxIdRepository } from './sandbox-id-repository.ts';
import { createSandboxUsers } from './sandbox-users.ts';
import type { ShellSandbox, ShellSandboxStatus } from './shell-sandbox.ts';
import { createUnsandboxedShell } from './unsandboxed-shell.ts';

export interface ShellSandboxConfig {
  mode: 'bubblewrap' | 'off';
  passEnv: readonly string[];
  range: SandboxIdRange;
  /** The one uid of earlier versions (`MANGO_SANDBOX_UID`): it must stay outside the range. */
  legacyUid: number;
  pool: number;
  /** Bytes one user's sandboxes may hold together (`MANGO_SANDBOX_USER_MEMORY`). */
  userMemoryBytes: number;
}

/** Reads the settings. @throws ConfigError naming the variable, what it accepts and what it got. */
export function readShellSandboxConfig(environment: Environment): ShellSandboxConfig {
  return {
    mode: readVariable(environment, 'MANGO_SHELL_SANDBOX'),
    passEnv: readVariable(environment, 'MANGO_SHELL_PASS_ENV'),
    range: {
      base: readVariable(environment, 'MANGO_SANDBOX_UID_BASE'),
      count: readVariable(environment, 'MANGO_SANDBOX_UID_COUNT'),
    },
    legacyUid: readVariable(environment, 'MANGO_SANDBOX_UID'),
    pool: readVariable(environment, 'MANGO_SANDBOX_POOL'),
    userMemoryBytes: readVariable(environment, 'MANGO_SANDBOX_USER_MEMORY'),
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
  /**
   * Where users' ids are kept (the database's `sandbox_ids`). Without it a root server's sandbox is
   * unavailable: it gives no tenant another's uid.
   */
  ids?: SandboxIdRepository;
  /** The host's account files, by path (default: read from `/etc`); injectable for tests. */
  hostAccounts?: Readonly<Record<string, string>>;
}

const HOST_ACCOUNT_FILES = ['/etc/passwd', '/etc/group', '/etc/subuid', '/etc/subgid'];

/** The host's account files that exist, by path (what the range is checked against). */
export function readHostAccounts(): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const file of HOST_ACCOUNT_FILES) {
    try {
      texts[file] = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as { code?: string }).code !== 'ENOENT') throw error;
    }
  }
  return texts;
}

/** Why `config`'s range cannot be used on this host, or undefined. */
export function sandboxRangeRefusal(
  config: Pick<ShellSandboxConfig, 'range' | 'legacyUid'>,
  hostAccounts: Readonly<Record<string, string>>,
): string | undefined {
  const problem = rangeProblem(config.range);
  if (problem) return problem;
  const conflicts = rangeConflicts(config.range, [
    ...hostIdUses(hostAccounts),
    {
      file: 'MANGO_SANDBOX_UID',
      name: 'the uid of earlier versions',
      from: config.legacyUid,
      to: config.legacyUid,
    },
  ]);
  if (conflicts.length === 0) return undefined;
  const shown = conflicts.slice(0, 3).join('; ');
  const more = conflicts.length > 3 ? ` and ${conflicts.length - 3} more` : '';
  return `the sandbox range ${config.range.base}–${config.range.base + config.range.count - 1} (MANGO_SANDBOX_UID_BASE, MANGO_SANDBOX_UID_COUNT) holds ids the host already uses: ${shown}${more}. Move the range so that no host account shares an id with a tenant.`;
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
  const serverIsRoot = process.getuid?.() === 0;
  if (serverIsRoot) {
    const refusal = sandboxRangeRefusal(config, options.hostAccounts ?? readHostAccounts());
    if (refusal) return createUnavailableShellSandbox(`The shell sandbox cannot run: ${refusal}`);
  }
  try {
    return createBubblewrapSandbox({
      legacyUid: config.legacyUid,
      ...(serverIsRoot && options.ids
        ? { users: createSandboxUsers({ repository: options.ids, range: config.range }) }
        : {}),
      pool: { maxIdle: config.pool },
      limits: { userMemoryBytes: config.userMemoryBytes },
      passEnv: config.passEnv,
      environment,
      log: options.log,
    });
  } catch (error) {
    return createUnavailableShellSandbox(`The shell sandbox cannot run: ${(error as Error).message}`);
  }
}
