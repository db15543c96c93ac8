import { afterAll, beforeAll, expect, test } from 'bun:test';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { computeOperatorReachableSet } from '../../src/tools/access/reachable-set.ts';
import { buildShellTool } from '../../src/tools/builtin/build-shell-tool.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { ShellCommandResult } from '../../src/tools/shell/run-shell-command.ts';
import { createTestSandbox, describeSandbox } from './sandbox-host.ts';

describeSandbox('operator mode on a real host: the whole filesystem as the root', () => {
  let sandbox: BubblewrapSandbox;
  let cwd: string;
  const registry = new ToolRegistry();

  beforeAll(() => {
    sandbox = createTestSandbox();
    registry.register(buildShellTool('bash', { sandbox: () => sandbox }));
    cwd = mkdtempSync(join(tmpdir(), 'mango-operator-'));
    // mkdtemp makes 0700; the sandbox uid must be able to enter its working directory.
    chmodSync(cwd, 0o755);
  });
  afterAll(() => {
    sandbox.dispose();
    rmSync(cwd, { recursive: true, force: true });
  });

  test('a command runs where / is the root, also on a merged-/usr host (/bin a link into /usr), in a working directory under /tmp', async () => {
    const reachable = computeOperatorReachableSet(cwd, cwd, ['/proc', '/sys', '/dev']);
    const outcome = await executeTool(
      'bash',
      { command: 'echo hi; readlink /bin || echo "bin is a directory"' },
      { userId: 'operator', chatId: undefined, reachable },
      { enabled: true, parameters: {} },
      { registry },
    );
    if (!outcome.ok) throw new Error(`expected a result, got ${JSON.stringify(outcome.error)}`);
    const result = outcome.result as ShellCommandResult;
    const hostBin = (await Bun.$`readlink /bin || echo "bin is a directory"`.nothrow().text()).trim();
    expect(result.stdout).toBe(`hi\n${hostBin}\n`);
    expect(result.exitCode).toBe(0);
  });
});
