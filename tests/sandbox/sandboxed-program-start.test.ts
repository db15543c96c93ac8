/**
 * A long-running program started in its sandbox (an MCP server on stdio) is held by the program launcher
 * until its sandbox joined the user's process cgroup, so the program and every process it starts count
 * against that user's limit; after the start line its stdin is its own.
 */

import { expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { DEFAULT_SANDBOX_ID_RANGE } from '../../src/sandbox/sandbox-id-range.ts';
import type { ProgramProcess } from '../../src/sandbox/shell-sandbox.ts';
import { openUserProcessCgroups, PIDS_CGROUP_ROOT } from '../../src/sandbox/user-process-cgroups.ts';
import { liveProcessesWith } from '../helpers/live-processes.ts';
import { holdsFor, waitUntil } from '../helpers/wait-until.ts';
import { createTestSandbox, describeSandbox, useTestSandbox } from './sandbox-host.ts';

const usable = process.getuid?.() === 0 && typeof openUserProcessCgroups(61000, 1024) !== 'string';
if (!usable)
  console.warn(`[skip] per-user limits of programs: no writable pids cgroup at ${PIDS_CGROUP_ROOT}`);

/** Reads the program's stdout until `text` has appeared; the stream stays usable for the next read. */
function stdoutReader(child: ProgramProcess) {
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  return async (text: string): Promise<string> => {
    while (!seen.includes(text)) {
      const chunk = await reader.read();
      if (chunk.done) break;
      seen += decoder.decode(chunk.value, { stream: true });
    }
    return seen;
  };
}

describeSandbox('a program in its sandbox counts against its user’s process limit', () => {
  const setup = useTestSandbox({ limits: { processes: 400, userProcesses: 60 } });

  const start = async (userId: string, script: string, target: BubblewrapSandbox = setup.sandbox) => {
    const prepare = target.prepareProgram;
    if (!prepare) throw new Error('the bubblewrap sandbox contains programs');
    const launch = await prepare({
      argv: ['/usr/bin/bash', '-c', script],
      cwd: setup.layout.alice,
      reachable: setup.layout.reachable,
      environment: {},
      network: 'none',
      userId,
    });
    return launch.start();
  };

  test.skipIf(!usable)(
    'the launcher, the program and its children are in the user’s cgroup; the rest of stdin reaches the program',
    async () => {
      const userId = `program-user-${crypto.randomUUID()}`;
      const hash = createHash('sha256').update(userId).digest('hex').slice(0, 16);
      const directory = `${PIDS_CGROUP_ROOT}/mango-sandbox-${DEFAULT_SANDBOX_ID_RANGE.base}/user-${hash}`;
      const child = await start(
        userId,
        'for i in 1 2 3; do sleep 30 & done; echo started; read line; echo "got $line"',
      );
      try {
        const read = stdoutReader(child);
        expect(await read('started\n')).toBe('started\n');
        // The launcher (the sandbox's PID 1), bash and its three sleeps: five tasks, all counted.
        expect(readFileSync(`${directory}/pids.current`, 'utf8')).toBe('5\n');
        expect(readFileSync(`${directory}/pids.max`, 'utf8')).toBe('60\n');
        child.stdin.write('hello\n');
        await child.stdin.flush();
        expect(await read('got hello\n')).toBe('started\ngot hello\n');
        // bash exits; the launcher kills the sleeps and ends the setup.sandbox.
        expect(await child.exited).toBe(0);
        expect(await waitUntil(() => readFileSync(`${directory}/pids.current`, 'utf8') === '0\n', 5000)).toBe(
          true,
        );
      } finally {
        child.kill('SIGKILL');
      }
    },
    30_000,
  );

  test.skipIf(!usable)(
    "a program's fork loop stops at its user's limit",
    async () => {
      const forkLoop =
        'my $n = 0; while ($n < 1000) { my $p = fork(); if (!defined $p) { last } ' +
        'if ($p == 0) { sleep 6; exit 0 } $n++ } print "stopped at $n\\n";';
      const child = await start(`program-loop-${crypto.randomUUID()}`, `perl -e '${forkLoop}'`);
      try {
        const output = await stdoutReader(child)('\n');
        const count = Number(/^stopped at (\d+)\n$/.exec(output)?.[1]);
        // 60 tasks for the user: the launcher, perl (bash runs a lone command by exec) and its 58 children.
        expect(count).toBe(58);
      } finally {
        child.kill('SIGKILL');
      }
    },
    30_000,
  );

  test('without per-user cgroups the program starts at once and still gets its stdin', async () => {
    const shared = createTestSandbox({ cgroupRoots: { processes: null } });
    try {
      expect(shared.status()).toMatchObject({
        summary: expect.stringContaining('processes per uid (per-user limits are switched off)'),
      });
      const child = await start('program-shared', 'read line; echo "got $line"', shared);
      child.stdin.write('hello\n');
      await child.stdin.flush();
      expect(await stdoutReader(child)('\n')).toBe('got hello\n');
      expect(await child.exited).toBe(0);
    } finally {
      shared.dispose();
    }
  });

  test.skipIf(process.getuid?.() !== 0)(
    'a cgroup that cannot be joined kills the sandbox before the program ran, and says why',
    async () => {
      // A pids hierarchy whose user cgroup is a plain file: joining it fails with ENOTDIR.
      const root = mkdtempSync(join(tmpdir(), 'mango-cgroup-'));
      const userId = 'program-unjoinable';
      const hash = createHash('sha256').update(userId).digest('hex').slice(0, 16);
      writeFileSync(join(root, 'cgroup.procs'), '');
      mkdirSync(join(root, `mango-sandbox-${DEFAULT_SANDBOX_ID_RANGE.base}`));
      writeFileSync(join(root, `mango-sandbox-${DEFAULT_SANDBOX_ID_RANGE.base}`, 'pids.max'), 'max\n');
      writeFileSync(join(root, `mango-sandbox-${DEFAULT_SANDBOX_ID_RANGE.base}`, `user-${hash}`), '');
      const marker = join(setup.layout.alice, `ran-${crypto.randomUUID()}`);
      const unjoinable = createTestSandbox({ cgroupRoots: { processes: root } });
      try {
        await expect(start(userId, `touch ${marker}`, unjoinable)).rejects.toThrow(
          /^The shell sandbox cannot apply the per-user process limit: ENOTDIR/,
        );
        // What did not happen: the program never ran, watched for a while after the refusal.
        expect(await holdsFor(() => !existsSync(marker), 300)).toBe(true);
        // And nothing of the sandbox is left: no process whose command line names the marker (the
        // sandbox's PID 1 once outlived the bubblewrap that was killed during its setup).
        expect(await waitUntil(async () => (await liveProcessesWith(marker)).length === 0, 5_000)).toBe(true);
      } finally {
        unjoinable.dispose();
        rmSync(root, { recursive: true, force: true });
      }
    },
  );
});
