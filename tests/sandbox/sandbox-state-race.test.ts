import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { bashCommand } from '../helpers/bash-command.ts';
import { describeSandbox, useTestSandbox } from './sandbox-host.ts';

const REOPENER = join(import.meta.dir, '__fixtures__', 'reopen-state-directory.ts');
const RACE_MS = 4000;
const CONCURRENT_CALLS = 16;

describeSandbox('many concurrent sandboxes while other processes open the shared state directory', () => {
  const setup = useTestSandbox();

  test('every call builds its sandbox: the synthesized passwd and group are never missing or replaced', async () => {
    const reopeners = [0, 1].map(() =>
      Bun.spawn([process.execPath, REOPENER, String(RACE_MS)], { stdout: 'pipe', stderr: 'inherit' }),
    );
    const failures: string[] = [];
    let calls = 0;
    const end = performance.now() + RACE_MS;
    const worker = async () => {
      while (performance.now() < end) {
        const result = await setup.sandbox.run(
          bashCommand('id -un', setup.layout.alice, setup.layout.reachable),
        );
        calls += 1;
        if (result.exitCode !== 0 || result.stdout !== 'sandbox\n') {
          failures.push(`exit ${result.exitCode}: ${result.stdout}${result.stderr}`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENT_CALLS }, worker));
    const reports = await Promise.all(reopeners.map((child) => new Response(child.stdout).text()));
    for (const report of reports) expect(report).toMatch(/^opened [1-9]\d*\n$/);
    expect(calls).toBeGreaterThan(CONCURRENT_CALLS);
    expect(failures).toEqual([]);
  }, 60_000);
});
