/**
 * The environment a shell command receives (issue 4): the server's own environment minus its secrets,
 * with pagers and git prompts switched off so that nothing waits for a person.
 *
 * Dropped by default: a variable whose name looks like a credential (see
 * {@link isCredentialName}) or whose value holds a URL with embedded credentials
 * (`postgres://user:password@host/db`, `https://token@github.com/...`). `deniedEnvVars` removes more;
 * `allowedEnvVars` lets a named variable through the credential rules. Deny wins over allow. Both
 * lists take exact names, or patterns with `*` (`AWS_*`). `PAGER=cat`, `GIT_PAGER=cat` and
 * `GIT_TERMINAL_PROMPT=0` are set last and always.
 */

/** Name fragments that mark a credential wherever they appear in the (upper-cased) name. */
const CREDENTIAL_NAME_FRAGMENTS = [
  'KEY',
  'TOKEN',
  'SECRET',
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE',
  'CREDENTIAL',
  'PRIVATE',
  'COOKIE',
];

/**
 * Whole name words (split at `_` and other non-alphanumerics) that mark a credential. Kept as words so
 * that `GIT_AUTHOR_NAME` or `PATH` survive while `SSH_AUTH_SOCK`, `NPM_AUTH` or `GH_PAT` do not.
 */
const CREDENTIAL_NAME_WORDS = new Set(['AUTH', 'AUTHORIZATION', 'PAT']);

/** Variables set for every command, after filtering, so no pager or git prompt waits for input. */
export const FORCED_SHELL_ENVIRONMENT: Readonly<Record<string, string>> = {
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
};

/** True when a variable's name looks like it holds a credential. Pure. */
export function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  if (CREDENTIAL_NAME_FRAGMENTS.some((fragment) => upper.includes(fragment))) return true;
  return upper.split(/[^A-Z0-9]+/).some((word) => CREDENTIAL_NAME_WORDS.has(word));
}

const USERINFO_TERMINATORS = new Set(['/', '?', '#', '@', ' ', '\t', '\n', '\r', ',', ';', '"', "'"]);

/**
 * True when `value` contains a URL with a user-info part (`scheme://user[:password]@host`). Linear in
 * the value's length: it scans forward from each `://` once, with no regular expression to backtrack.
 */
export function containsUrlCredentials(value: string): boolean {
  let searchFrom = 0;
  for (;;) {
    const separator = value.indexOf('://', searchFrom);
    if (separator < 0) return false;
    let index = separator + 3;
    while (index < value.length && !USERINFO_TERMINATORS.has(value[index] as string)) index += 1;
    if (index > separator + 3 && value[index] === '@') return true;
    searchFrom = Math.max(index, separator + 3);
  }
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

export interface ShellEnvironmentRules {
  /** Names or `*` patterns let through the credential rules. */
  allowedEnvVars?: readonly string[];
  /** Names or `*` patterns always removed (wins over `allowedEnvVars`). */
  deniedEnvVars?: readonly string[];
}

/** Why a variable was left out; exposed for tests and diagnostics. */
export type EnvironmentExclusion = 'denied' | 'credential_name' | 'credential_url';

/** The verdict on one variable, or `undefined` when it is passed to the command. Pure. */
export function getEnvironmentExclusion(
  name: string,
  value: string,
  rules: ShellEnvironmentRules = {},
): EnvironmentExclusion | undefined {
  const matchesAny = (patterns: readonly string[] | undefined) =>
    (patterns ?? []).some((pattern) => matchesNamePattern(name, pattern));
  if (matchesAny(rules.deniedEnvVars)) return 'denied';
  if (matchesAny(rules.allowedEnvVars)) return undefined;
  if (isCredentialName(name)) return 'credential_name';
  if (containsUrlCredentials(value)) return 'credential_url';
  return undefined;
}

/**
 * The environment for a shell command, built from `source` (the server's `process.env` by default).
 * Pure apart from reading `process.env` when no source is given.
 */
export function buildShellEnvironment(
  rules: ShellEnvironmentRules = {},
  source: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (getEnvironmentExclusion(name, value, rules) === undefined) environment[name] = value;
  }
  return { ...environment, ...FORCED_SHELL_ENVIRONMENT };
}
