/**
 * What every bubblewrap sandbox of one owner is built from, per call: the environment its interpreter
 * gets (shell-environment.ts's allowlist, nothing else) and the full argument plan (sandbox-arguments.ts)
 * for one identity and one reachable set. The owner's fixed settings (limits, host layout, whether the
 * uid is dropped, the passed-through variables) are bound once, so the probe, commands and programs
 * are planned by the same rules.
 */
import { buildShellEnvironment } from '../tools/shell/shell-environment.ts';
import type { HostLayout, PlanArgument } from './bubblewrap-mount-plan.ts';
import type { LaunchedSandbox } from './launched-sandbox.ts';
import { type SandboxLimits, type SandboxPrograms, sandboxArguments } from './sandbox-arguments.ts';
import type { SandboxIdentity } from './sandbox-identity.ts';
import type { SandboxPool } from './sandbox-pool.ts';
import type { SandboxStateDirectory } from './sandbox-state-directory.ts';
import type { SandboxedCommand, SandboxedProgram } from './shell-sandbox.ts';
import type { UserShares } from './user-shares.ts';

export interface BubblewrapCallSetupSettings {
  limits: SandboxLimits;
  dropsPrivilege: boolean;
  host: HostLayout;
  /** Variable names an operator passes through. */
  passEnv: readonly string[] | undefined;
  /** Where allowlisted variables are read from. */
  source: Readonly<Record<string, string | undefined>>;
}

export interface BubblewrapCallSetup {
  environmentFor(
    identity: Pick<SandboxIdentity, 'home' | 'user'>,
    interpreterPath: string,
    deniedEnvVars: readonly string[],
  ): Record<string, string>;
  argumentsFor(
    tools: SandboxPrograms,
    files: SandboxStateDirectory,
    identity: SandboxIdentity,
    command: Pick<SandboxedCommand, 'reachable' | 'cwd' | 'deniedPaths'>,
    probing?: boolean,
    program?: Pick<SandboxedProgram, 'argv' | 'network' | 'runtimeFiles'>,
  ): PlanArgument[];
}

export function createBubblewrapCallSetup(settings: BubblewrapCallSetupSettings): BubblewrapCallSetup {
  return {
    environmentFor: (identity, interpreterPath, deniedEnvVars) =>
      buildShellEnvironment(
        { home: identity.home, user: identity.user, shell: interpreterPath },
        { passEnv: settings.passEnv, deniedEnvVars },
        settings.source,
      ),
    argumentsFor: (tools, files, identity, command, probing = false, program) =>
      sandboxArguments({
        programs: tools,
        identity,
        limits: settings.limits,
        dropsPrivilege: settings.dropsPrivilege,
        files: { ...files, ...files.accounts(identity) },
        command,
        host: settings.host,
        probing,
        program,
      }),
  };
}

/** What a command or a program start of one owner's sandbox uses, beyond the plan and environment. */
export interface BubblewrapCallContext {
  setup: BubblewrapCallSetup;
  /** Who `userId`'s calls reaching `roots` run as. */
  identityFor(userId: string, roots?: readonly string[]): Promise<SandboxIdentity>;
  /** The programs and a repaired state directory; throws, with the reason, while unavailable. */
  ready(): { tools: SandboxPrograms; files: SandboxStateDirectory };
  /** Whether the sandbox is still available (a disposed one builds nothing ahead). */
  available(): boolean;
  pool: SandboxPool;
  shares: UserShares;
  launch(plan: readonly PlanArgument[]): LaunchedSandbox;
  log(line: string): void;
}
