/**
 * What the start-up line says of the shares, or of what bounds commands without them, and what a call
 * that could not start for want of a process slot is told; on hierarchies made up in a temp dir, so
 * the texts are checked whatever the host has.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_SANDBOX_LIMITS } from '../../src/sandbox/sandbox-arguments.ts';
import { openUserShares } from '../../src/sandbox/user-shares.ts';

const FALLBACK = '8 GiB of address space per process, /tmp 512 MiB, HOME 128 MiB, /dev/shm 64 MiB';

describe('openUserShares', () => {
  const root = mkdtempSync(join(tmpdir(), 'mango-shares-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  /** A pids hierarchy as far as the shares can tell: a cgroup.procs and the parent's pids.max. */
  const pids = join(root, 'pids');
  mkdirSync(join(pids, 'mango-sandbox-61000'), { recursive: true });
  writeFileSync(join(pids, 'cgroup.procs'), '');
  writeFileSync(join(pids, 'mango-sandbox-61000', 'pids.max'), 'max\n');
  const limits = { ...DEFAULT_SANDBOX_LIMITS, userMemoryBytes: 2 * 1024 ** 3 };

  test('a server that is not root has none, and says what bounds commands instead, once', () => {
    const shares = openUserShares({ parentId: 61000, serverIsRoot: false, limits });
    expect(shares.admits).toBe(false);
    expect(shares.summary).toBe(
      `no per-user shares (the server is not root): at most 1024 processes per uid, ${FALLBACK}, CPU time divided between processes`,
    );
    expect(shares.startFailureMessage('EAGAIN', 'Resource temporarily unavailable')).toBe(
      `The command could not start: the processes of uid ${process.getuid?.()}, which every user's commands ` +
        'run as here, are at their limit (1024, RLIMIT_NPROC). Wait for other commands to finish; run the ' +
        'server as root for a limit per user.',
    );
  });

  test('each share that cannot be had is named with its reason and what stands in for it', () => {
    const shares = openUserShares({
      parentId: 61000,
      serverIsRoot: true,
      limits,
      roots: { processes: pids, memory: join(root, 'no-memory'), cpu: null },
    });
    expect(shares.admits).toBe(true);
    expect(shares.summary).toBe(
      'at most 512 processes per user, ' +
        `no memory share per user (${join(root, 'no-memory')} is not a cgroup hierarchy on this host): ${FALLBACK}, ` +
        'no CPU share per user (per-user limits are switched off)',
    );
  });

  test('a user at their limit is told both limits; another errno is named as such', () => {
    const shares = openUserShares({
      parentId: 61000,
      serverIsRoot: true,
      limits,
      roots: { processes: pids, memory: null, cpu: null },
    });
    expect(shares.startFailureMessage('EAGAIN', 'Resource temporarily unavailable')).toBe(
      "The command could not start: this user's processes are at their limit (512 per user, all their " +
        "commands and MCP servers together; 1024 per uid, RLIMIT_NPROC). Wait for this user's other " +
        'commands to finish, or stop the one that holds the processes (a fork loop, say).',
    );
    expect(shares.startFailureMessage('ENOMEM', 'Cannot allocate memory')).toBe(
      'The command could not start: the sandbox could not create its process (Cannot allocate memory).',
    );
    const unlimited = openUserShares({
      parentId: 61000,
      serverIsRoot: true,
      limits,
      roots: { processes: null, memory: null, cpu: null },
    });
    expect(unlimited.admits).toBe(false);
    expect(unlimited.startFailureMessage('EAGAIN', 'Resource temporarily unavailable')).toContain(
      'at their limit (1024 per uid, RLIMIT_NPROC)',
    );
  });
});
