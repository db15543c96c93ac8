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

import { processEnvironment } from '../config/process-environment.ts';
import type { SandboxIdRepository } from './sandbox-id-repository.ts';
import type { ShellSandbox } from './shell-sandbox.ts';
import { createShellSandboxFromEnvironment } from './shell-sandbox-config.ts';

let installed: ShellSandbox | undefined;
let provided: SandboxIdRepository | undefined;
/** The sandboxes made here (not installed), with the store of ids each was made with. */
const madeWith = new WeakMap<ShellSandbox, SandboxIdRepository | undefined>();

/** The sandbox shell tools run through; created from the process environment on first use. */
export function hostShellSandbox(): ShellSandbox {
  if (installed === undefined) {
    installed = createShellSandboxFromEnvironment(processEnvironment(), {
      log: (line) => process.stderr.write(`${line}\n`),
      ...(provided === undefined ? {} : { ids: provided }),
    });
    madeWith.set(installed, provided);
  }
  return installed;
}

/**
 * Where the sandbox created on first use keeps users' ids (a CLI command's database), until the
 * returned `restore` puts back the store provided before: without one, a root process's sandbox runs
 * nothing rather than share one uid between tenants. A sandbox made here with another store (also one
 * put back by `installShellSandbox`'s undo) is made again at its next use.
 */
export function provideSandboxIds(repository: SandboxIdRepository | undefined): () => void {
  const previous = provided;
  const use = (ids: SandboxIdRepository | undefined) => {
    provided = ids;
    if (installed !== undefined && madeWith.has(installed) && madeWith.get(installed) !== ids) {
      // Its sandboxes built ahead are ended; it never ran a command of the new store's users.
      installed.dispose?.();
      installed = undefined;
    }
  };
  use(repository);
  return () => use(previous);
}

/**
 * Makes `sandbox` the one every shell tool of this process uses from now on. The returned function
 * puts back the one used before, unless another was installed since (a server that stops gives up
 * its sandbox, whose store of ids closes with its database).
 */
export function installShellSandbox(sandbox: ShellSandbox): () => void {
  const previous = installed;
  installed = sandbox;
  return () => {
    if (installed === sandbox) installed = previous;
  };
}
