/**
 * Test helper: a host file or directory a swap attack aims at (root's, 0700), and the check that the
 * attack left it as it was.
 */
import { expect } from 'bun:test';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeSentinel } from './hostile-tenant.ts';

/** The bytes of a host sentinel file. */
export const SENTINEL_BYTES = 'sentinel\n'.repeat(500);

/**
 * A host sentinel an attack aims at, root's and 0700: a file of {@link SENTINEL_BYTES}, or a directory
 * standing for the sandbox state. Returns its path and what it is before the attack.
 */
export function makeHostSentinel(directory: string, kind: 'file' | 'directory') {
  const sentinel = join(directory, kind === 'file' ? 'secret' : 'sandbox-state');
  if (kind === 'file') {
    writeFileSync(sentinel, SENTINEL_BYTES, { mode: 0o700 });
  } else {
    mkdirSync(sentinel, { mode: 0o700 });
  }
  chmodSync(sentinel, 0o700);
  return { sentinel, before: describeSentinel(sentinel) };
}

/** The sentinel is what it was, and that was root's own 0700 file or directory. */
export function expectHostSentinelKept(
  sentinel: string,
  before: ReturnType<typeof describeSentinel>,
  kind: 'file' | 'directory',
): void {
  expect(describeSentinel(sentinel)).toEqual(before);
  expect(before).toMatchObject({ mode: (kind === 'file' ? 0o100000 : 0o40000) | 0o700, uid: 0, gid: 0 });
}
