/** A mistake in how the CLI was invoked; the CLI prints it with usage help and exits with code 2. */
import { MangoError } from '../errors/mango-error.ts';
export class UsageError extends MangoError {
  override name = 'UsageError';
  constructor(message: string, options?: ErrorOptions) {
    super('usage_error', message, options);
  }
}

/** Output sinks and process facts a command uses, injectable so tests run commands in-process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  env: Record<string, string | undefined>;
}

/** A CLI command: receives the arguments after its name and returns the process exit code. */
export type CliCommand = (argv: string[], io: CliIo) => Promise<number>;
