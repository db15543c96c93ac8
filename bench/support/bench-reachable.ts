/** The reachable set a benchmark's tool calls run with: confined to one directory, as a chat would be. */
import { tmpdir } from 'node:os';
import { computeReachableSet, type ReachableSet } from '../../src/tools/access/reachable-set.ts';

export function benchReachable(directory: string = tmpdir()): ReachableSet {
  return computeReachableSet({
    workspaces: [{ path: directory, access: 'read-write', kind: 'personal' }],
    workingDirectory: directory,
    homeDirectory: directory,
    confined: true,
    protectedPaths: ['/proc', '/sys', '/dev'],
  });
}
