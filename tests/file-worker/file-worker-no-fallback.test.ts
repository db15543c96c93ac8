/**
 * No silent fallback: with file workers installed, a call whose worker cannot start fails with the
 * worker's error, and the server does none of its file work itself: nothing is written, read or
 * listed. The sandbox is broken for real here: an address-space limit too small for Bun to start in.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type InstalledFileWorkers, installFileWorkers } from '../../src/file-worker/install-file-workers.ts';
import { DEFAULT_SANDBOX_LIMITS } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { InMemoryFreshnessLedger } from '../../src/tools/freshness-ledger.ts';
import { expectFailure } from '../helpers/call-tool.ts';
import { describeSandbox, useTestSandbox } from '../sandbox/sandbox-host.ts';

describeSandbox('a file worker that cannot start', () => {
  const host = useTestSandbox({ limits: { ...DEFAULT_SANDBOX_LIMITS, addressSpaceBytes: 16 * 1024 * 1024 } });
  let installed: InstalledFileWorkers;
  beforeAll(() => {
    installed = installFileWorkers(host.sandbox);
  });
  afterAll(() => installed.stop());

  const call = (name: string, args: Record<string, unknown>) =>
    executeTool(name, args, {
      userId: 'alice',
      chatId: 'chat-1',
      reachable: host.layout.reachable,
      ledger: new InMemoryFreshnessLedger(),
    });

  test('fails every file tool with its error; the server reads, writes and lists nothing itself', async () => {
    expect(installed.pool).toBeDefined();
    const { alice } = host.layout;
    writeFileSync(join(alice, 'kept.txt'), 'kept\n');
    for (const [name, args] of [
      ['write_file', { path: 'new.txt', content: 'x' }],
      ['read_file', { path: 'kept.txt' }],
      ['list_directory', { path: '.' }],
      ['edit_file', { path: 'kept.txt', oldString: 'kept', newString: 'changed' }],
    ] as const) {
      const failure = expectFailure(await call(name, args));
      // Bun is killed by the limit before it could say anything (SIGSEGV: exit status 139).
      expect({ name, ...failure }).toEqual({
        name,
        classification: 'execution_error',
        message: expect.stringMatching(/^The file worker for this call could not start: exit status \d+\.$/),
      });
    }
    expect(existsSync(join(alice, 'new.txt'))).toBe(false);
    expect(readFileSync(join(alice, 'kept.txt'), 'utf8')).toBe('kept\n');
    expect(installed.pool?.workers().size).toBe(0);
  });
});
