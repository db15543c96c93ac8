/**
 * The server configuration as a CLI command reads it: from the command's environment and working
 * directory, with a configuration mistake reported as a usage error (exit 2 and the message), never as
 * a stack trace.
 */
import { ConfigError, loadConfig, type ServerConfig } from '../config.ts';
import { type CliIo, UsageError } from './usage-error.ts';

export function loadCliConfig(io: Pick<CliIo, 'env' | 'cwd'>): ServerConfig {
  try {
    return loadConfig(io.env, io.cwd);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message);
    throw error;
  }
}
