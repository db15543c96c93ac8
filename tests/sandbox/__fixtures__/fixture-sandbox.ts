/**
 * What the sandbox fixtures standing for a server process share: the shell sandbox a server would
 * create (the process exits with status 2, printing why, when it cannot run here), and the reachable
 * set of a chat confined to one directory.
 */
import { type BubblewrapSandbox, createBubblewrapSandbox } from '../../../src/sandbox/bubblewrap-sandbox.ts';
import { testSandboxUsers } from '../../helpers/test-sandbox-users.ts';
import { computeReachableSet, type ReachableSet } from '../../../src/tools/access/reachable-set.ts';

export function fixtureSandbox(): BubblewrapSandbox {
  const sandbox = createBubblewrapSandbox({ log: () => {}, users: testSandboxUsers() });
  const status = sandbox.status();
  if (!status.available) {
    console.log(`unavailable: ${status.reason}`);
    process.exit(2);
  }
  return sandbox;
}

export function confinedTo(directory: string): ReachableSet {
  return computeReachableSet({
    workspaces: [{ path: directory, access: 'read-write', kind: 'personal' }],
    workingDirectory: directory,
    homeDirectory: directory,
    confined: true,
    protectedPaths: [],
  });
}
