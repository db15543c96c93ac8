/**
 * The three shell interpreters: how each is found and how a command
 * becomes its argument vector. bash and zsh are looked up with `Bun.which`; powershell is offered only
 * on Windows, `pwsh` first, then Windows PowerShell. An interpreter that is not found is never offered.
 */

export type ShellKind = 'bash' | 'zsh' | 'powershell';

export const SHELL_KINDS: readonly ShellKind[] = ['bash', 'zsh', 'powershell'];

/** A located interpreter: its kind, the executable's absolute path, and how it runs one command. */
export interface ShellInterpreter {
  kind: ShellKind;
  executable: string;
  /** The full argument vector (executable first) that runs `command` non-interactively. */
  argumentsFor(command: string): string[];
}

/** What interpreter lookup depends on; injectable so tests can ask "what if this were Windows". */
export interface InterpreterEnvironment {
  which(name: string): string | null;
  platform: NodeJS.Platform;
}

const defaultInterpreterEnvironment: InterpreterEnvironment = {
  which: (name) => Bun.which(name),
  platform: process.platform,
};

/** The executable names tried for a kind on a platform, in order of preference. */
export function getInterpreterCandidates(kind: ShellKind, platform: NodeJS.Platform): string[] {
  switch (kind) {
    case 'bash':
      return ['bash'];
    case 'zsh':
      return ['zsh'];
    case 'powershell':
      return platform === 'win32' ? ['pwsh', 'powershell'] : [];
  }
}

function argumentsFor(kind: ShellKind, executable: string, command: string): string[] {
  if (kind === 'powershell') return [executable, '-NoProfile', '-NonInteractive', '-Command', command];
  return [executable, '-c', command];
}

/** Finds the interpreter for `kind`, or `undefined` when this machine has none. */
export function findShellInterpreter(
  kind: ShellKind,
  environment: InterpreterEnvironment = defaultInterpreterEnvironment,
): ShellInterpreter | undefined {
  for (const candidate of getInterpreterCandidates(kind, environment.platform)) {
    const executable = environment.which(candidate);
    if (executable) {
      return { kind, executable, argumentsFor: (command) => argumentsFor(kind, executable, command) };
    }
  }
  return undefined;
}
