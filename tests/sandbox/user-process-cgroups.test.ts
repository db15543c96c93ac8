import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openUserProcessCgroups, PIDS_CGROUP_ROOT } from '../../src/sandbox/user-process-cgroups.ts';
import { bashCommand } from '../helpers/bash-command.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { describeSandbox, useTestSandbox } from './sandbox-host.ts';

describe('opening the per-user process cgroups', () => {
  const root = mkdtempSync(join(tmpdir(), 'mango-cgroup-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  test('a directory that is no cgroup hierarchy, or no pids one, is refused with the reason', () => {
    expect(openUserProcessCgroups(61000, 10, root)).toBe(`${root} is not a cgroup hierarchy on this host`);
    writeFileSync(join(root, 'cgroup.procs'), '');
    expect(openUserProcessCgroups(61000, 10, root)).toBe(`${root} is not a pids cgroup hierarchy`);
  });
});

const usable = process.getuid?.() === 0 && typeof openUserProcessCgroups(61000, 1024) !== 'string';
if (!usable) console.warn(`[skip] per-user process limits: no writable pids cgroup at ${PIDS_CGROUP_ROOT}`);

describeSandbox('one user cannot take every process slot of the sandbox', () => {
  const setup = useTestSandbox({ limits: { processes: 400, userProcesses: 60 } });

  const run = (userId: string, command: string, signal?: AbortSignal) =>
    setup.sandbox.run(
      bashCommand(command, setup.layout.alice, setup.layout.reachable, { userId, timeoutMs: 30_000, signal }),
    );

  test.skipIf(!usable)(
    'a process that already ended is left alone; a live one is counted in its user’s cgroup',
    async () => {
      const cgroups = openUserProcessCgroups(61000, 1024);
      if (typeof cgroups === 'string') throw new Error(cgroups);
      const ended = Bun.spawn(['true']);
      await ended.exited;
      expect(() => cgroups.admit('cgroup-test', ended.pid)).not.toThrow();
      const live = Bun.spawn(['sleep', '5']);
      try {
        cgroups.admit('cgroup-test', live.pid);
        expect(await Bun.file(`/proc/${live.pid}/cgroup`).text()).toMatch(
          /:pids:\/mango-sandbox-61000\/user-[0-9a-f]{16}\n/,
        );
      } finally {
        live.kill('SIGKILL');
      }
    },
  );

  test.skipIf(!usable)(
    "a fork loop stops at its user's limit while another user's command still starts 40 processes",
    async () => {
      expect(setup.sandbox.status()).toMatchObject({
        summary: expect.stringContaining('at most 60 processes per user'),
      });
      // The loop leaves this file once a fork fails: it holds every process it got. Each user has a uid
      // of their own, so the file goes to a directory anyone may write in.
      const board = join(setup.layout.alice, `board-${crypto.randomUUID()}`);
      mkdirSync(board);
      chmodSync(board, 0o1777);
      const limited = join(board, 'limit-reached');
      const forkLoop =
        `my $n = 0; while ($n < 1000) { my $p = fork(); if (!defined $p) { open(my $f, ">", "${limited}"); last } ` +
        'if ($p == 0) { sleep 6; exit 0 } $n++ } sleep 3; print "stopped at $n\\n";';
      const looping = run('mallory', `perl -e '${forkLoop}'`);
      expect(await waitUntil(() => existsSync(limited), 15_000)).toBe(true);
      // While the loop holds every slot (its children sleep on), work of mallory's that cannot run is
      // told why; bob is below his limit.
      expect(setup.sandbox.watchProcessLimit?.('mallory', 'The file work of this call could not run')()).toBe(
        "The file work of this call could not run: this user's processes are at their limit (60 per user, all their commands and MCP servers together; 400 per uid, RLIMIT_NPROC). Wait for this user's other commands to finish, or stop the one that holds the processes (a fork loop, say).",
      );
      expect(setup.sandbox.watchProcessLimit?.('bob', 'The file work of this call could not run')()).toBe(
        undefined,
      );
      rmSync(limited);
      const other = await run(
        'bob',
        'for i in $(seq 40); do sleep 2 & done; jobs -p | wc -l; wait; echo done',
      );
      expect(other.stdout).toBe('40\ndone\n');
      const looped = await looping;
      const count = Number(/^stopped at (\d+)\n$/.exec(looped.stdout)?.[1]);
      expect(count).toBeGreaterThan(0);
      expect(count).toBeLessThan(60);
    },
    30_000,
  );

  test.skipIf(!usable)(
    'a call of a user at their limit fails at once, naming the limits, instead of waiting for a slot',
    async () => {
      const board = join(setup.layout.alice, `board-${crypto.randomUUID()}`);
      mkdirSync(board);
      chmodSync(board, 0o1777);
      const limited = join(board, 'limit-reached');
      const forkLoop =
        `while (1) { my $p = fork(); if (!defined $p) { open(my $f, ">", "${limited}"); last } ` +
        'if ($p == 0) { sleep 30; exit 0 } } sleep 30;';
      const holding = new AbortController();
      const looping = run('mallory-at-limit', `perl -e '${forkLoop}'`, holding.signal);
      try {
        expect(await waitUntil(() => existsSync(limited), 15_000)).toBe(true);
        const startedAt = performance.now();
        await expect(run('mallory-at-limit', 'echo hi')).rejects.toMatchObject({
          classification: 'execution_error',
          message:
            "The command could not start: this user's processes are at their limit (60 per user, all their " +
            "commands and MCP servers together; 400 per uid, RLIMIT_NPROC). Wait for this user's other " +
            'commands to finish, or stop the one that holds the processes (a fork loop, say).',
        });
        // Generous: the waiter's fork fails at once; Perl's system() retried it every 5 s.
        expect(performance.now() - startedAt).toBeLessThan(3000);
      } finally {
        holding.abort();
      }
      expect((await looping).termination).toEqual({ kind: 'aborted', signal: 'SIGKILL' });
    },
    30_000,
  );

  test.skipIf(!usable)(
    'orphans a command leaves are reaped while it runs, so they do not hold its slots',
    async () => {
      // Each `(true &)` leaves an orphan for the sandbox's PID 1; 200 of them pass a limit of 60.
      const result = await run('orphans', 'for i in $(seq 200); do (true &); done; echo done');
      expect(result).toMatchObject({ exitCode: 0, stdout: 'done\n', stderr: '' });
    },
    30_000,
  );
});
