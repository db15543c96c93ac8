import { describe, expect, test } from 'bun:test';
import { parseSandboxInitPid, waitForSandboxTeardown } from '../../src/sandbox/sandbox-teardown.ts';
import { holdsFor } from '../helpers/wait-until.ts';

describe('waiting for a sandbox to end', () => {
  test("reads the init's pid from bubblewrap's info JSON", () => {
    expect(parseSandboxInitPid('{\n    "child-pid": 25938,\n    "mnt-namespace": 4026532178\n}')).toBe(25938);
    expect(parseSandboxInitPid('')).toBeUndefined();
  });

  test('returns once the process is gone, and at once when there is none to wait for', async () => {
    const child = Bun.spawn(['sleep', '30'], { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' });
    const waiting = waitForSandboxTeardown(`{"child-pid": ${child.pid}}`);
    let settled = false;
    void waiting.then(() => {
      settled = true;
    });
    // It must not return while the process lives: watched for a while, then the process ends.
    expect(await holdsFor(() => !settled, 100)).toBe(true);
    child.kill('SIGKILL');
    await child.exited;
    await waiting;
    expect(settled).toBe(true);
    const startedAt = performance.now();
    await waitForSandboxTeardown('no info');
    expect(performance.now() - startedAt).toBeLessThan(1000);
  });

  test('gives up after the limit', async () => {
    const child = Bun.spawn(['sleep', '30'], { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' });
    try {
      const startedAt = performance.now();
      await waitForSandboxTeardown(`{"child-pid": ${child.pid}}`, 150);
      expect(performance.now() - startedAt).toBeGreaterThanOrEqual(145);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
