/**
 * The process environment, read in this folder only: the server's configuration is parsed from it
 * (`environment-variables.ts`), and the modules that need the environment itself — the shell allowlist
 * and `MANGO_SHELL_PASS_ENV`, the start of the server, the command line — take it from here. The layer
 * check refuses `process.env` anywhere else in `src/`, so every read of the environment is found here.
 */
export type ProcessEnvironment = Readonly<Record<string, string | undefined>>;

/** This process's environment, live (a variable set later is seen). */
export function processEnvironment(): ProcessEnvironment {
  return process.env;
}
