/**
 * A pooled sandbox ends with the process that pooled it, in every state it can be in: being built,
 * idle, handed over, running, tearing down; whether that process exits, gets SIGTERM or SIGKILL.
 */
import { expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { handToSandboxUser } from '../../src/sandbox/sandbox-file-owner.ts';
import { killEach, sandboxProcessesIn } from '../helpers/live-processes.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { describeSandbox, useTestSandbox } from './sandbox-host.ts';

const FIXTURE = join(import.meta.dir, '__fixtures__', 'pooling-process.ts');
const STATES = ['building', 'idle', 'handed-over', 'running', 'tearing-down'] as const;
const ENDINGS = ['exit', 'SIGTERM', 'SIGKILL'] as const;
/** The building state's window is a few milliseconds wide: it is tried this many times per ending. */
const BUILDING_RUNS = 6;

describeSandbox('pooled sandboxes end with the process that pooled them', () => {
  const setup = useTestSandbox();

  async function endIn(state: (typeof STATES)[number], ending: (typeof ENDINGS)[number], run: number) {
    const workspace = join(setup.layout.base, `pool-${state}-${ending}-${run}-${crypto.randomUUID()}`);
    mkdirSync(workspace);
    await handToSandboxUser(workspace, 'alice', setup.sandbox);
    const child = Bun.spawn(
      [process.execPath, FIXTURE, workspace, state, ending === 'exit' ? 'exit' : 'wait'],
      { stdin: 'ignore', stdout: 'pipe', stderr: 'inherit' },
    );
    try {
      const reader = child.stdout.getReader();
      const line = new TextDecoder().decode((await reader.read()).value);
      expect(line).toBe(`${state}\n`);
      if (ending !== 'exit') child.kill(ending);
      await child.exited;
      const endedAt = performance.now();
      const gone = await waitUntil(async () => (await sandboxProcessesIn(workspace)).length === 0, 3000);
      expect({ state, ending, run, left: gone ? [] : await sandboxProcessesIn(workspace) }).toEqual({
        state,
        ending,
        run,
        left: [],
      });
      expect(performance.now() - endedAt).toBeLessThan(3000);
    } finally {
      child.kill('SIGKILL');
      killEach(await sandboxProcessesIn(workspace));
    }
  }

  for (const state of STATES) {
    for (const ending of ENDINGS) {
      test(`${ending === 'exit' ? 'a normal exit' : ending} of the pooling process in state ${state} leaves none of its sandbox processes 3 s later`, async () => {
        for (let run = 0; run < (state === 'building' ? BUILDING_RUNS : 1); run++) {
          await endIn(state, ending, run);
        }
      }, 60_000);
    }
  }
});
