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

/** Asks the store provided last (a sandbox made on first use outlives the command that made it). */
const providedIds: SandboxIdRepository = {
  find: (kind, owner) => current().find(kind, owner),
  allocate: (kind, owner, range, now) => current().allocate(kind, owner, range, now),
  list: () => current().list(),
};

function current(): SandboxIdRepository {
  if (provided === undefined) {
    throw new Error(
      'this process has no database of users’ sandbox ids (a server and every `mango` command provide theirs; an embedding installs its own sandbox with installShellSandbox).',
    );
  }
  return provided;
}

/** The sandbox shell tools run through; created from `process.env` on first use. */
export function hostShellSandbox(): ShellSandbox {
  installed ??= createShellSandboxFromEnvironment(process.env, {
    log: (line) => process.stderr.write(`${line}\n`),
    ids: providedIds,
  });
  return installed;
}

/**
 * Where the sandbox created on first use keeps users' ids (a CLI command's database): without it, a
 * root process's sandbox runs nothing rather than share one uid between tenants.
 */
export function provideSandboxIds(repository: SandboxIdRepository): void {
  provided = repository;
}

/** Makes `sandbox` the one every shell tool of this process uses from now on. */
export function installShellSandbox(sandbox: ShellSandbox): void {
  installed = sandbox;
}
