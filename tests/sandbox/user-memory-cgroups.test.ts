/**
 * The memory share per user: each sandbox in a memory cgroup of its own under its user's, which holds
 * the share; tmpfs pages count; a call over the share is killed by the kernel and says so, and when a
 * user's calls together run out, the one whose process was killed is the one that says so.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openUserMemoryCgroups } from '../../src/sandbox/user-memory-cgroups.ts';
import { bashCommand } from '../helpers/bash-command.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { createTestSandbox, describeSandbox, useTestSandbox } from './sandbox-host.ts';
import { sharesUnavailable, testUsers, userCgroupOf } from './user-share-cgroups.ts';

const MiB = 1024 ** 2;
const SHARE = 256 * MiB;

describe('opening the per-user memory cgroups', () => {
  const root = mkdtempSync(join(tmpdir(), 'mango-cgroup-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const parent = join(root, 'mango-sandbox-61000');

  test('a directory that is no cgroup hierarchy, or no memory one, is refused with the reason', () => {
    expect(openUserMemoryCgroups(61000, SHARE, root)).toBe(`${root} is not a cgroup hierarchy on this host`);
    writeFileSync(join(root, 'cgroup.procs'), '');
    expect(openUserMemoryCgroups(61000, SHARE, root)).toBe(`${root} is not a memory cgroup hierarchy`);
  });

  test('a kernel whose memory cgroups do not count OOM kills is refused: a kill could not be reported', () => {
    writeFileSync(join(parent, 'memory.limit_in_bytes'), '9223372036854771712\n');
    writeFileSync(join(parent, 'memory.oom_control'), 'oom_kill_disable 0\nunder_oom 0\n');
    expect(openUserMemoryCgroups(61000, SHARE, root)).toBe(
      "this kernel's memory cgroups do not count OOM kills (Linux 4.13 or later does)",
    );
  });

  test('hierarchical accounting is switched on; a user cgroup gets the share, swap included where counted', () => {
    writeFileSync(join(parent, 'memory.oom_control'), 'oom_kill_disable 0\nunder_oom 0\noom_kill 0\n');
    writeFileSync(join(parent, 'memory.use_hierarchy'), '0\n');
    writeFileSync(join(root, 'memory.memsw.limit_in_bytes'), '9223372036854771712\n');
    const cgroups = openUserMemoryCgroups(61000, SHARE, root);
    if (typeof cgroups === 'string') throw new Error(cgroups);
    expect(readFileSync(join(parent, 'memory.use_hierarchy'), 'utf8')).toBe('1');
    expect(cgroups).toMatchObject({ limitBytes: SHARE, swapCounted: true });
    const sandbox = cgroups.admit('memory-user', 4242);
    const user = readdirSync(parent).find((name) => name.startsWith('user-')) as string;
    expect(readFileSync(join(parent, user, 'memory.limit_in_bytes'), 'utf8')).toBe(String(SHARE));
    expect(readFileSync(join(parent, user, 'memory.memsw.limit_in_bytes'), 'utf8')).toBe(String(SHARE));
    const [own] = readdirSync(join(parent, user)).filter((name) => name.startsWith('sandbox-'));
    expect(own).toMatch(new RegExp(`^sandbox-${process.pid}-[0-9a-f]{12}$`));
    expect(readFileSync(join(parent, user, own as string, 'cgroup.procs'), 'utf8')).toBe('4242');
    expect(sandbox.killed()).toBe(false);
  });
});

const unavailable = sharesUnavailable(['memory']);
if (unavailable) console.warn(`[skip] per-user memory shares: ${unavailable}`);

describeSandbox("one user's memory hog is killed within their share", () => {
  const setup = useTestSandbox({ limits: { userMemoryBytes: SHARE } });
  const users = testUsers();
  afterAll(() => users.remove());

  const run = (userId: string, command: string) =>
    setup.sandbox.run(
      bashCommand(command, setup.layout.alice, setup.layout.reachable, { userId, timeoutMs: 30_000 }),
    );

  /** A directory every user's commands may write flags to (each has a uid of their own). */
  const board = () => {
    const directory = join(setup.layout.alice, `board-${crypto.randomUUID()}`);
    mkdirSync(directory);
    chmodSync(directory, 0o1777);
    return directory;
  };
  const ownSandboxes = (userId: string) =>
    readdirSync(userCgroupOf('memory', userId)).filter((name) => name.startsWith(`sandbox-${process.pid}-`));
  const usage = (userId: string) =>
    Number(readFileSync(join(userCgroupOf('memory', userId), 'memory.usage_in_bytes'), 'utf8'));

  test.skipIf(unavailable !== undefined)(
    "each call has a cgroup of its own under its user's, which holds the share; it is gone after the call",
    async () => {
      const flags = board();
      const userId = users.id('memory-own');
      const call = run(
        userId,
        `touch ${flags}/running; while [ ! -e ${flags}/release ]; do sleep 0.02; done`,
      );
      expect(await waitUntil(() => existsSync(join(flags, 'running')), 10_000)).toBe(true);
      const user = userCgroupOf('memory', userId);
      expect(readFileSync(join(user, 'memory.limit_in_bytes'), 'utf8')).toBe(`${SHARE}\n`);
      expect(readFileSync(join(user, 'memory.memsw.limit_in_bytes'), 'utf8')).toBe(`${SHARE}\n`);
      const running = ownSandboxes(userId);
      expect(running).toHaveLength(1);
      expect(readFileSync(join(user, running[0] as string, 'cgroup.procs'), 'utf8')).not.toBe('');
      writeFileSync(join(flags, 'release'), '');
      expect((await call).termination).toEqual({ kind: 'exited' });
      expect(await waitUntil(() => ownSandboxes(userId).length === 0, 10_000)).toBe(true);
    },
  );

  test.skipIf(unavailable !== undefined)(
    "what a call writes to its /tmp counts against its user's share, until the sandbox is gone",
    async () => {
      const flags = board();
      const userId = users.id('memory-tmpfs');
      const call = run(
        userId,
        `head -c 100M /dev/zero > /tmp/fill && touch ${flags}/written; while [ ! -e ${flags}/release ]; do sleep 0.02; done`,
      );
      expect(await waitUntil(() => existsSync(join(flags, 'written')), 10_000)).toBe(true);
      expect(usage(userId)).toBeGreaterThanOrEqual(100 * MiB);
      writeFileSync(join(flags, 'release'), '');
      expect((await call).exitCode).toBe(0);
      // The kernel frees the tmpfs with the mount namespace, a moment after its last process.
      expect(await waitUntil(() => usage(userId) < 10 * MiB, 10_000)).toBe(true);
    },
  );

  test.skipIf(unavailable !== undefined)(
    'a call over the share is killed by the kernel and says so, in memory or in its /tmp',
    async () => {
      const userId = users.id('memory-hog');
      const hog = await run(userId, `perl -e '$x = "x" x (1024**3); print "survived\\n"'`);
      expect(hog).toMatchObject({
        exitCode: null,
        signal: 'SIGKILL',
        stdout: '',
        termination: { kind: 'memory', limitBytes: SHARE, signal: 'SIGKILL' },
      });
      // The /tmp of the sandbox (512 MiB) is larger than this share: the writer is killed.
      const filler = await run(userId, 'head -c 400M /dev/zero > /tmp/fill; echo "wrote $?"');
      expect(filler.termination).toMatchObject({ kind: 'memory', limitBytes: SHARE });
      expect(filler.stdout).not.toContain('wrote 0');
      expect((await run(userId, 'echo next')).stdout).toBe('next\n');
    },
  );

  test.skipIf(unavailable !== undefined)(
    'when calls of one user run out of their share together, the call whose process was killed says so',
    async () => {
      const flags = board();
      const userId = users.id('memory-together');
      // 180 MiB held (vec touches each page once, no copy), then 120 MiB asked for by another call: the
      // kernel kills the largest process of the user, the holder's.
      const holder = run(
        userId,
        `perl -e 'my $x; vec($x, 180 * 1024**2 - 1, 8) = 1; open(my $f, ">", "${flags}/holding"); close($f); sleep 20'`,
      );
      expect(await waitUntil(() => existsSync(join(flags, 'holding')), 10_000)).toBe(true);
      const asker = await run(
        userId,
        `perl -e 'my $y; vec($y, 120 * 1024**2 - 1, 8) = 1; print "asker done\\n"'`,
      );
      expect(asker).toMatchObject({ exitCode: 0, stdout: 'asker done\n', termination: { kind: 'exited' } });
      expect((await holder).termination).toEqual({ kind: 'memory', limitBytes: SHARE, signal: 'SIGKILL' });
    },
  );

  test.skipIf(unavailable !== undefined)(
    'a sandbox cgroup left by a server process that is gone is removed when the user is next admitted',
    async () => {
      const userId = users.id('memory-orphan');
      expect((await run(userId, 'true')).exitCode).toBe(0);
      const ended = Bun.spawn(['true']);
      await ended.exited;
      const left = join(userCgroupOf('memory', userId), `sandbox-${ended.pid}-0123456789ab`);
      mkdirSync(left);
      // A new sandbox (another server process, as far as the user's cgroup can tell) prepares it again.
      const next = createTestSandbox({ limits: { userMemoryBytes: SHARE } });
      try {
        expect(
          (
            await next.run(
              bashCommand('true', setup.layout.alice, setup.layout.reachable, { userId, timeoutMs: 30_000 }),
            )
          ).exitCode,
        ).toBe(0);
        expect(existsSync(left)).toBe(false);
      } finally {
        next.dispose();
      }
    },
  );
});
