/**
 * The CPU share per user: every process of a user's call is scheduled in that user's cpu cgroup, of
 * the same weight as every other user's. How much that keeps for a user beside two busy ones is
 * measured, not asserted: `npm run bench -- fair-shares`.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openUserCpuCgroups, USER_CPU_SHARES } from '../../src/sandbox/user-cpu-cgroups.ts';
import { bashCommand } from '../helpers/bash-command.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { describeSandbox, useTestSandbox } from './sandbox-host.ts';
import { sharesUnavailable, testUsers, userCgroupOf } from './user-share-cgroups.ts';

describe('opening the per-user cpu cgroups', () => {
  const root = mkdtempSync(join(tmpdir(), 'mango-cgroup-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test('a directory that is no cgroup hierarchy, or no cpu one, is refused with the reason', () => {
    expect(openUserCpuCgroups(61000, root)).toBe(`${root} is not a cgroup hierarchy on this host`);
    writeFileSync(join(root, 'cgroup.procs'), '');
    expect(openUserCpuCgroups(61000, root)).toBe(`${root} is not a cpu cgroup hierarchy`);
  });
});

const unavailable = sharesUnavailable(['cpu']);
if (unavailable) console.warn(`[skip] per-user CPU shares: ${unavailable}`);

describeSandbox("a user's commands are scheduled in that user's cpu cgroup", () => {
  const setup = useTestSandbox();
  const users = testUsers();
  afterAll(() => users.remove());

  test.skipIf(unavailable !== undefined)(
    'every process of the call is in its user’s cgroup, whose weight is every user’s',
    async () => {
      const flags = join(setup.layout.alice, `board-${crypto.randomUUID()}`);
      mkdirSync(flags);
      chmodSync(flags, 0o1777);
      const userId = users.id('cpu-user');
      const call = setup.sandbox.run(
        bashCommand(
          `sleep 30 & sleep 30 & touch ${flags}/running; while [ ! -e ${flags}/release ]; do sleep 0.02; done`,
          setup.layout.alice,
          setup.layout.reachable,
          { userId, timeoutMs: 30_000 },
        ),
      );
      expect(await waitUntil(() => existsSync(join(flags, 'running')), 10_000)).toBe(true);
      const user = userCgroupOf('cpu', userId);
      expect(readFileSync(join(user, 'cpu.shares'), 'utf8')).toBe(`${USER_CPU_SHARES}\n`);
      // The waiter, bash, its loop's sleep and the two background sleeps, at least. A background job
      // is a fork of bash until it has exec'd sleep, which may come after `running` is touched: wait
      // for both sleeps rather than read the cgroup once.
      const namesInCgroup = () =>
        readFileSync(join(user, 'cgroup.procs'), 'utf8')
          .trim()
          .split('\n')
          .map((pid) => {
            try {
              return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
            } catch {
              return 'gone';
            }
          });
      const sleeps = () => namesInCgroup().filter((name) => name === 'sleep').length;
      expect(await waitUntil(() => sleeps() >= 2, 10_000)).toBe(true);
      const names = namesInCgroup();
      expect(names.filter((name) => name === 'sleep').length).toBeGreaterThanOrEqual(2);
      expect(names).toContain('bash');
      writeFileSync(join(flags, 'release'), '');
      expect((await call).exitCode).toBe(0);
      expect(await waitUntil(() => readFileSync(join(user, 'cgroup.procs'), 'utf8') === '', 10_000)).toBe(
        true,
      );
    },
  );
});
