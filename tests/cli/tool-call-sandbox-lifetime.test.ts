/**
 * `mango tool call` ends without leaving a sandbox behind: right after the call the warm pool starts
 * building the next sandbox, and the CLI exits at once, mid-build. Run as a real process, repeatedly,
 * since the build's window is a few milliseconds wide.
 */
import { afterAll, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { killEach, sandboxProcessesIn } from '../helpers/live-processes.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { describeSandbox } from '../sandbox/sandbox-host.ts';

const ROOT = resolve(import.meta.dir, '..', '..');
const RUNS = 8;
const temporary = mkdtempSync(join('/var/tmp', 'mango-cli-pool-'));
chmodSync(temporary, 0o755);
afterAll(() => rmSync(temporary, { recursive: true, force: true }));

describeSandbox('mango tool call and the warm pool', () => {
  test(`${RUNS} runs of mango tool call bash leave none of their sandbox processes 3 s after each exit`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const workspace = join(temporary, `call-${run}`);
      mkdirSync(workspace);
      // The command takes its user's uid from its own database: anyone may write here.
      chmodSync(workspace, 0o777);
      const child = Bun.spawn(
        [
          process.execPath,
          join(ROOT, 'src/cli/main.ts'),
          'tool',
          'call',
          'bash',
          '{"command":"true"}',
          '--enable',
          '--cwd',
          workspace,
        ],
        {
          cwd: temporary,
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            HOME: temporary,
            MANGO_DATA_DIR: join(temporary, 'data'),
            MANGO_WORKSPACES_DIR: join(temporary, 'workspaces'),
          },
          stdin: 'ignore',
          stdout: 'pipe',
          stderr: 'pipe',
        },
      );
      try {
        const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
        expect({ code, ok: (JSON.parse(stdout) as { ok: boolean }).ok }).toEqual({ code: 0, ok: true });
        const gone = await waitUntil(async () => (await sandboxProcessesIn(workspace)).length === 0, 3000);
        expect({ run, left: gone ? [] : await sandboxProcessesIn(workspace) }).toEqual({ run, left: [] });
      } finally {
        child.kill('SIGKILL');
        killEach(await sandboxProcessesIn(workspace));
      }
    }
  }, 120_000);
});
