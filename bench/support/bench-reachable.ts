/** The reachable set a benchmark's tool calls run with: confined to one directory, as a chat would be. */
import { tmpdir } from 'node:os';
import { computeBindingReachableSet } from '../../src/tools/access/binding-reachable-set.ts';
import type { ReachableSet } from '../../src/tools/access/reachable-set.ts';

export function benchReachable(directory: string = tmpdir()): ReachableSet {
  return computeBindingReachableSet({
    workingDirectory: directory,
    confined: true,
    fallbackWorkingDirectory: directory,
    homeDirectory: directory,
  });
}
