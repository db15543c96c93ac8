import { expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { handToSandboxUser } from '../../src/sandbox/sandbox-file-owner.ts';
import { openUserProcessCgroups } from '../../src/sandbox/user-process-cgroups.ts';
import { bashCommand } from '../helpers/bash-command.ts';
import { liveProcessesWith } from '../helpers/live-processes.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { createTestSandbox, describeSandbox, useTestSandbox } from './sandbox-host.ts';

const FIXTURE = join(import.meta.dir, '__fixtures__', 'sandboxed-commands-process.ts');
const perUserLimits = process.getuid?.() === 0 && typeof openUserProcessCgroups(61000, 1024) !== 'string';

describeSandbox('sandbox lifetime and limits', () => {
  const setup = useTestSandbox();

  test('kill -9 of the process that started the sandboxes leaves no command, and no idle pooled sandbox, of it alive after 1 s', async () => {
    const marker = `302.${Math.floor(Math.random() * 1e6)}`;
    const idleCwd = join(setup.layout.alice, `idle-${marker}`);
    mkdirSync(idleCwd);
    await handToSandboxUser(idleCwd, 'alice', setup.sandbox);
    // bubblewrap's outer process carries the plan's working directory on its command line.
    const idleSandbox = () => liveProcessesWith(`\0--chdir\0${idleCwd}\0`);
    const child = Bun.spawn([process.execPath, FIXTURE, marker, setup.layout.alice, idleCwd], {
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'inherit',
    });
    try {
      // Five sleeps: the two commands' own, a setsid job, a double fork and a nohup job.
      expect(
        await waitUntil(async () => (await liveProcessesWith(`sleep\0${marker}`)).length === 5, 10_000),
      ).toBe(true);
      expect(await waitUntil(async () => (await idleSandbox()).length === 1, 10_000)).toBe(true);
      child.kill('SIGKILL');
      await child.exited;
      const killedAt = performance.now();
      expect(
        await waitUntil(
          async () =>
            (await liveProcessesWith(`sleep\0${marker}`)).length === 0 && (await idleSandbox()).length === 0,
          1000,
        ),
      ).toBe(true);
      expect(performance.now() - killedAt).toBeLessThan(1000);
    } finally {
      child.kill('SIGKILL');
    }
  }, 20_000);

  test('a bounded fork loop is stopped by the process limit, and the call still ends cleanly', async () => {
    // Where the host has per-user process cgroups, the user's own limit stops it, whatever other
    // sandboxes of the shared uid run meanwhile; elsewhere the shared limit of the uid does.
    const limited = createTestSandbox({
      limits: perUserLimits ? { userProcesses: 40 } : { processes: 40 },
      pool: { maxIdle: 0 },
    });
    try {
      const forkLoop =
        'my $n = 0; while ($n < 400) { my $p = fork(); if (!defined $p) { print "stopped at $n: $!\\n"; last } ' +
        'if ($p == 0) { sleep 30; exit 0 } $n++ } print "forked $n\\n" if $n == 400;';
      const result = await limited.run(
        bashCommand(`perl -e '${forkLoop}'`, setup.layout.alice, setup.layout.reachable, {
          userId: 'fork-loop',
        }),
      );
      const match = /^stopped at (\d+): Resource temporarily unavailable\n$/.exec(result.stdout);
      expect(match).not.toBeNull();
      expect(Number(match?.[1])).toBeLessThan(40);
      expect(result.termination).toEqual({ kind: 'exited' });
    } finally {
      limited.dispose();
    }
  }, 30_000);

  test('a file past the file-size limit and a /tmp past its size fail inside the sandbox', async () => {
    const limited = createTestSandbox({ limits: { fileBytes: 1024 * 1024, tmpBytes: 2 * 1024 * 1024 } });
    try {
      const result = await limited.run(
        bashCommand(
          'head -c 2000000 /dev/zero > big.bin 2>/dev/null; echo "cwd file $(stat -c %s big.bin)"; ' +
            'for i in 1 2 3; do head -c 900000 /dev/zero > /tmp/fill$i 2>/dev/null || echo "tmp full at $i"; done',
          setup.layout.alice,
          setup.layout.reachable,
        ),
      );
      expect(result.stdout).toBe('cwd file 1048576\ntmp full at 3\n');
    } finally {
      limited.dispose();
    }
  }, 30_000);
});
