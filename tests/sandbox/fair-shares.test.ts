/**
 * Fair shares under attack, with real bubblewrap and the kernel's cgroups: two users run, one kind at
 * a time, a fork loop to their process limit, a memory hog past their memory share (in memory and in
 * their /tmp), and a CPU loop on every core; meanwhile a third user's `echo` completes, and a hog's
 * result names the share that stopped it. Every attacking call is ended by aborting it (its sandbox's
 * process group is killed, and its namespace with everything in it).
 */
import { afterAll, expect, test } from 'bun:test';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { buildShellTool } from '../../src/tools/builtin/build-shell-tool.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { ShellCommandResult } from '../../src/tools/shell/run-shell-command.ts';
import { bashCommand } from '../helpers/bash-command.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { describeSandbox, useTestSandbox } from './sandbox-host.ts';
import { sharesUnavailable, testUsers } from './user-share-cgroups.ts';

const MiB = 1024 ** 2;
/** Small enough that a hog reaches it in a moment; below the sandbox's /tmp (512 MiB). */
const SHARE = 256 * MiB;
/** Generous: the echo takes tens of milliseconds; a start held by a retried fork took 10 s. */
const ECHO_BOUND_MS = 3000;

const unavailable = sharesUnavailable(['pids', 'memory', 'cpu']);
if (unavailable) console.warn(`[skip] fair shares under attack: ${unavailable}`);

describeSandbox('fair shares: two users attack, a third one’s command still runs', () => {
  const setup = useTestSandbox({ limits: { userMemoryBytes: SHARE } });
  const users = testUsers();
  afterAll(() => users.remove());
  const attackers = (): [string, string] => [users.id('fair-mallory'), users.id('fair-trudy')];

  const run = (userId: string, command: string, signal?: AbortSignal): Promise<ShellCommandResult> =>
    setup.sandbox.run(
      bashCommand(command, setup.layout.alice, setup.layout.reachable, { userId, timeoutMs: 30_000, signal }),
    );

  /** A directory every user's commands may leave flags in (each has a uid of their own). */
  const board = () => {
    const directory = join(setup.layout.alice, `board-${crypto.randomUUID()}`);
    mkdirSync(directory);
    chmodSync(directory, 0o1777);
    return directory;
  };

  /** The victim's echo, timed. */
  const echo = async (userId: string) => {
    const startedAt = performance.now();
    const result = await run(userId, 'echo still here');
    return { result, ms: performance.now() - startedAt };
  };

  /** Runs `command(flag)` for each attacker until each left its flag, then `during`, then ends them. */
  const underAttack = async (
    attackerIds: readonly string[],
    command: (flag: string) => string,
    during: () => Promise<void>,
  ) => {
    const flags = board();
    const stop = new AbortController();
    const attacks = attackerIds.map((userId, index) => ({ userId, flag: join(flags, `attacking-${index}`) }));
    const running = attacks.map(({ userId, flag }) => run(userId, command(flag), stop.signal));
    try {
      expect(await waitUntil(() => attacks.every(({ flag }) => existsSync(flag)), 20_000)).toBe(true);
      await during();
    } finally {
      stop.abort();
    }
    for (const result of await Promise.all(running)) {
      expect(result.termination).toEqual({ kind: 'aborted', signal: 'SIGKILL' });
    }
  };

  test.skipIf(unavailable !== undefined)(
    'fork loops to the limit: the third user’s echo runs; an attacker’s next call fails at once',
    async () => {
      const victim = users.id('fair-carol');
      const [mallory, trudy] = attackers();
      await underAttack(
        [mallory, trudy],
        (flag) =>
          `perl -e 'while (1) { my $p = fork(); if (!defined $p) { open(my $f, ">", "${flag}"); last } ` +
          "if ($p == 0) { sleep 60; exit 0 } } sleep 60'",
        async () => {
          const { result, ms } = await echo(victim);
          expect(result).toMatchObject({ exitCode: 0, stdout: 'still here\n' });
          expect(ms).toBeLessThan(ECHO_BOUND_MS);
          const startedAt = performance.now();
          await expect(run(mallory, 'echo hi')).rejects.toThrow(
            "The command could not start: this user's processes are at their limit (512 per user",
          );
          expect(performance.now() - startedAt).toBeLessThan(ECHO_BOUND_MS);
        },
      );
    },
    60_000,
  );

  test.skipIf(unavailable !== undefined)(
    'memory hogs past the share: each is killed and says so; the third user’s echo in the same second runs',
    async () => {
      const [mallory, trudy] = attackers();
      const registry = new ToolRegistry();
      registry.register(buildShellTool('bash', { sandbox: () => setup.sandbox }));
      const startedAt = performance.now();
      const [inMemory, inTmp, victim] = await Promise.all([
        executeTool(
          'bash',
          { command: `perl -e '$x = "x" x (1024**3); print "survived\\n"'` },
          { userId: mallory, reachable: setup.layout.reachable },
          { enabled: true },
          { registry },
        ),
        run(trudy, 'head -c 400M /dev/zero > /tmp/fill; echo "wrote $?"'),
        echo(users.id('fair-carol')),
      ]);
      expect(inMemory).toMatchObject({
        ok: true,
        result: {
          stdout: '',
          termination: { kind: 'memory', limitBytes: SHARE, signal: 'SIGKILL' },
          notice: expect.stringContaining("this user's memory share ran out (256 MiB for all their commands"),
        },
      });
      expect(inTmp.termination).toMatchObject({ kind: 'memory', limitBytes: SHARE });
      expect(inTmp.stdout).not.toContain('wrote 0');
      expect(victim.result).toMatchObject({ exitCode: 0, stdout: 'still here\n' });
      expect(victim.ms).toBeLessThan(ECHO_BOUND_MS);
      expect(performance.now() - startedAt).toBeLessThan(20_000);
    },
    60_000,
  );

  test.skipIf(unavailable !== undefined)(
    'CPU loops on every core: the third user’s echo runs',
    async () => {
      const cores = availableParallelism();
      await underAttack(
        attackers(),
        (flag) => `for i in $(seq ${cores}); do (while :; do :; done) & done; touch ${flag}; wait`,
        async () => {
          const { result, ms } = await echo(users.id('fair-carol'));
          expect(result).toMatchObject({ exitCode: 0, stdout: 'still here\n' });
          expect(ms).toBeLessThan(ECHO_BOUND_MS);
        },
      );
    },
    60_000,
  );
});
