/**
 * The environment a shell command receives: built from an allowlist, never by filtering the server's
 * environment. A name-based filter cannot know every spelling of a secret (`DB_PASS`, `MYSQL_PWD`,
 * `SLACK_WEBHOOK_URL`, a URL whose password contains `/`), so nothing the server holds reaches a command
 * unless it is on the list.
 *
 * Passed from the server's environment: `PATH`, `LANG`, `LC_*`, `TERM`, `TZ`, the pager variables
 * (`PAGER`, `LESS`, `MANPAGER`…, then forced to non-interactive values) and every name an operator lists
 * in `MANGO_SHELL_PASS_ENV`. Set by the caller: `HOME`, `USER`, `LOGNAME`, `SHELL` (inside the sandbox
 * these are the sandbox's own). A user's `deniedEnvVars` removes names (exact or `*` patterns) from the
 * result, except the identity variables. `PAGER=cat`, `GIT_PAGER=cat` and `GIT_TERMINAL_PROMPT=0` are
 * set last and always, so nothing waits for a person.
 */
import { processEnvironment } from '../../config/process-environment.ts';

/** Names passed through from the server's environment when set there. */
export const ALLOWED_SHELL_VARIABLES: readonly string[] = [
  'PATH',
  'LANG',
  'LANGUAGE',
  'TERM',
  'TZ',
  'PAGER',
  'LESS',
  'LESSCHARSET',
  'MANPAGER',
  'GIT_PAGER',
];

/** Every `LC_*` locale variable is passed. */
const LOCALE_PREFIX = 'LC_';

/** Variables set for every command, after everything else, so no pager or git prompt waits for input. */
export const FORCED_SHELL_ENVIRONMENT: Readonly<Record<string, string>> = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
};

/** Who the command runs as, as it sees itself. */
export interface ShellIdentity {
  home: string;
  user: string;
  /** Absolute path of the interpreter. */
  shell: string;
}

export interface ShellEnvironmentRules {
  /** Extra names an operator lets through (`MANGO_SHELL_PASS_ENV`); exact names only. */
  passEnv?: readonly string[];
  /** A user's `deniedEnvVars`: names or `*` patterns removed from the result. */
  deniedEnvVars?: readonly string[];
}

/** True when `name` equals `pattern`, where each `*` in the pattern matches any run of characters. */
export function matchesNamePattern(name: string, pattern: string): boolean {
  if (!pattern.includes('*')) return name === pattern;
  const parts = pattern.split('*');
  const first = parts[0] as string;
  const last = parts[parts.length - 1] as string;
  if (!name.startsWith(first) || name.length < first.length + last.length) return false;
  if (!name.endsWith(last)) return false;
  let position = first.length;
  const limit = name.length - last.length;
  for (const middle of parts.slice(1, -1)) {
    const found = name.indexOf(middle, position);
    if (found < 0 || found + middle.length > limit) return false;
    position = found + middle.length;
  }
  return true;
}

/** True when a variable of this name may pass from the server's environment. Pure. */
export function isPassedVariable(name: string, passEnv: readonly string[] = []): boolean {
  return ALLOWED_SHELL_VARIABLES.includes(name) || name.startsWith(LOCALE_PREFIX) || passEnv.includes(name);
}

/**
 * The environment for one command, from `source` (the server's environment by default). Pure apart from
 * reading the process environment when no source is given.
 */
export function buildShellEnvironment(
  identity: ShellIdentity,
  rules: ShellEnvironmentRules = {},
  source: Readonly<Record<string, string | undefined>> = processEnvironment(),
): Record<string, string> {
  const environment: Record<string, string> = {};
  const denied = (name: string) =>
    (rules.deniedEnvVars ?? []).some((pattern) => matchesNamePattern(name, pattern));
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || !isPassedVariable(name, rules.passEnv) || denied(name)) continue;
    environment[name] = value;
  }
  return {
    ...environment,
    HOME: identity.home,
    USER: identity.user,
    LOGNAME: identity.user,
    SHELL: identity.shell,
    ...FORCED_SHELL_ENVIRONMENT,
  };
}
