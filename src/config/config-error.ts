/**
 * The one error a configuration value that cannot work raises. Its message names the variable, what it
 * expects and what it got, so an operator fixes it from the message alone; a value that may hold a secret
 * (a password in a URL) is described, never quoted, because start-up messages end up in logs.
 */
import { MangoError } from '../errors/mango-error.ts';

/** Thrown for a configuration value that cannot work; the CLI prints it and exits 2. */
export class ConfigError extends MangoError {
  override name = 'ConfigError';
  /** The environment variable at fault, when one is. */
  readonly variable: string | undefined;

  constructor(message: string, variable?: string) {
    super('config_invalid', message);
    this.variable = variable;
  }
}

/** `NAME must be <expected>, got "<raw>".`, or without the value when it may be secret. */
export function invalidVariable(
  name: string,
  expected: string,
  raw: string,
  options: { secret?: boolean; entry?: boolean } = {},
): ConfigError {
  const subject = options.entry ? `${name} entries` : name;
  const got = options.secret
    ? 'got another value (not shown: it may hold a password)'
    : `got ${JSON.stringify(raw)}`;
  return new ConfigError(`${subject} must be ${expected}, ${got}.`, name);
}
