/**
 * Whether the bubblewrap sandbox can run, decided once when it is created: unavailable, with the reason,
 * when the programs or the identities are missing, the state directory cannot be opened, or the probe
 * sandbox (sandbox-probe.ts) does not show an unprivileged, capability-free process inside. Only a
 * probe that passed makes the sandbox available, so every failure leaves it closed.
 */

import type { BubblewrapCallSetup } from './bubblewrap-call-setup.ts';
import type { SandboxPrograms } from './sandbox-arguments.ts';
import {
  describeWhoRuns,
  probeIdentity,
  type SandboxIdentities,
  type SandboxIdentity,
} from './sandbox-identity.ts';
import { runSandboxProbe } from './sandbox-probe.ts';
import {
  openSandboxStateDirectory,
  rangeStateDirectoryName,
  type SandboxStateDirectory,
  sharedStateDirectoryName,
} from './sandbox-state-directory.ts';
import type { ShellSandboxStatus } from './shell-sandbox.ts';

export interface BubblewrapStatusInput {
  /** The programs found, or why they were not. */
  programs: SandboxPrograms | string;
  identities: SandboxIdentities;
  setup: BubblewrapCallSetup;
  /** The per-user shares' one-line summary, shown when the sandbox is available. */
  sharesSummary: string;
}

/** The status, and the state directory the probe opened (undefined when it never got that far). */
export function bubblewrapStatus(input: BubblewrapStatusInput): {
  status: ShellSandboxStatus;
  state: SandboxStateDirectory | undefined;
} {
  const { programs, identities } = input;
  if (typeof programs === 'string') {
    return {
      status: { available: false, reason: `The shell sandbox cannot run: ${programs}` },
      state: undefined,
    };
  }
  if (identities.kind === 'unavailable') {
    return {
      status: { available: false, reason: `The shell sandbox cannot run: ${identities.reason}` },
      state: undefined,
    };
  }
  let problem: string | undefined;
  let state: SandboxStateDirectory | undefined;
  try {
    const probing = probeIdentity(identities);
    state = openSandboxStateDirectory(
      probing,
      undefined,
      identities.kind === 'per-user'
        ? rangeStateDirectoryName(identities.range.base)
        : sharedStateDirectoryName(probing),
    );
    problem = probe(input.setup, programs, state, probing);
  } catch (error) {
    problem = (error as Error).message;
  }
  const status: ShellSandboxStatus = problem
    ? { available: false, reason: `The shell sandbox cannot run: ${problem}` }
    : {
        available: true,
        mode: 'bubblewrap',
        summary: `bubblewrap, ${describeWhoRuns(identities)}, no network, ${input.sharesSummary}`,
      };
  return { status, state };
}

/** Runs the probe sandbox over the state directory alone; the problem it found, if any. */
function probe(
  setup: BubblewrapCallSetup,
  tools: SandboxPrograms,
  files: SandboxStateDirectory,
  identity: SandboxIdentity,
): string | undefined {
  const reachable = {
    workingDirectory: files.path,
    homeDirectory: files.path,
    roots: [{ path: files.path, access: 'read-only' as const }],
    protectedPaths: [],
  };
  return runSandboxProbe({
    bwrap: tools.bwrap,
    plan: setup.argumentsFor(tools, files, identity, { reachable, cwd: files.path, deniedPaths: [] }, true),
    environment: setup.environmentFor(identity, '/bin/sh', []),
  });
}
