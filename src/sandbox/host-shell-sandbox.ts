/**
 * The shell sandbox of this process. Tools are registered once per process, so the sandbox they run
 * through is held here: a server installs the one it was given (`installShellSandbox`, from
 * `startServer`'s options), and anything that runs a shell tool without installing one (the CLI, an
 * embedding) gets the sandbox the environment selects, created and probed on first use.
 *
 * That sandbox logs its `shell_command` lines on stderr: in the CLI, stdout is a command's result
 * (`mango tool call`) or a protocol channel (`mango mcp`), and a log line there breaks whoever parses
 * it. Only `mango serve`, which installs its own sandbox, logs on stdout as its docs say.
 */

import type { SandboxIdRepository } from './sandbox-id-repository.ts';
import type { ShellSandbox } from './shell-sandbox.ts';
import { createShellSandboxFromEnvironment } from './shell-sandbox-config.ts';

let installed: ShellSandbox | undefined;
let provided: SandboxIdRepository | undefined;
/** Whether `installed` was made here before any store of ids was provided (it runs nothing as root). */
let madeWithoutIds = false;

/** The sandbox shell tools run through; created from `process.env` on first use. */
export function hostShellSandbox(): ShellSandbox {
  if (installed === undefined) {
    madeWithoutIds = provided === undefined;
    installed = createShellSandboxFromEnvironment(process.env, {
      log: (line) => process.stderr.write(`${line}\n`),
      ...(provided === undefined ? {} : { ids: provided }),
    });
  }
  return installed;
}

/**
 * Where the sandbox created on first use keeps users' ids (a CLI command's database): without it, a
 * root process's sandbox runs nothing rather than share one uid between tenants. A sandbox made here
 * before, without one, is replaced at its next use.
 */
export function provideSandboxIds(repository: SandboxIdRepository): void {
  provided = repository;
  // It never ran a command (nor pooled one), so nothing of it needs ending.
  if (madeWithoutIds) installed = undefined;
}

/** Makes `sandbox` the one every shell tool of this process uses from now on. */
export function installShellSandbox(sandbox: ShellSandbox): void {
  installed = sandbox;
  madeWithoutIds = false;
}
