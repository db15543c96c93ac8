/**
 * A denied location stays denied when a directory above it is renamed: the shell cannot rename or
 * move the denied path or any directory between it and its workspace root (each is a mount point in
 * the sandbox, EBUSY), so `mv proj proj2` fails, and neither bash nor read_file reads the secret under
 * the old name or a new one.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { buildShellTool } from '../../src/tools/builtin/build-shell-tool.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { getTool, ToolRegistry } from '../../src/tools/registry.ts';
import type { ShellCommandResult } from '../../src/tools/shell/run-shell-command.ts';
import '../../src/tools/builtin/read-file.ts';
import {
  createSandboxLayout,
  createTestSandbox,
  describeSandbox,
  type SandboxLayout,
} from './sandbox-host.ts';

const DENIED = { deniedPaths: [{ path: '~/proj/vault', enabled: true }] };

describeSandbox('deniedPaths and a rename of a directory above the denied path', () => {
  let sandbox: BubblewrapSandbox;
  let layout: SandboxLayout;
  const registry = new ToolRegistry();

  beforeAll(async () => {
    sandbox = createTestSandbox();
    layout = await createSandboxLayout(sandbox);
    registry.register(buildShellTool('bash', { sandbox: () => sandbox }));
    const readFile = getTool('read_file');
    if (!readFile) throw new Error('read_file is registered by its module');
    registry.register(readFile);
    mkdirSync(join(layout.alice, 'proj', 'vault', 'inner'), { recursive: true });
    writeFileSync(join(layout.alice, 'proj', 'vault', 'secret.txt'), 'vault-secret\n');
    writeFileSync(join(layout.alice, 'proj', 'notes.txt'), 'open notes\n');
    await Bun.spawn([
      'chown',
      '-R',
      `${(await sandbox.identityFor('alice')).uid}:${(await sandbox.identityFor('alice')).gid}`,
      layout.alice,
    ]).exited;
  });
  afterAll(() => {
    sandbox.dispose();
    layout.remove();
  });

  const context = () => ({ userId: 'alice', chatId: 'chat-1', reachable: layout.reachable });

  async function bash(command: string): Promise<ShellCommandResult> {
    const outcome = await executeTool(
      'bash',
      { command },
      context(),
      { enabled: true, parameters: DENIED },
      { registry },
    );
    if (!outcome.ok) throw new Error(`expected a result, got ${JSON.stringify(outcome.error)}`);
    return outcome.result as ShellCommandResult;
  }

  async function readFile(path: string) {
    return executeTool('read_file', { path }, context(), { enabled: true, parameters: DENIED }, { registry });
  }

  test('mv proj proj2 is refused (EBUSY), and proj2/vault/secret.txt is readable by neither bash nor read_file', async () => {
    const moved = await bash('mv proj proj2; echo "mv $?"');
    expect(moved.stdout).toBe('mv 1\n');
    expect(moved.stderr).toBe("mv: cannot move 'proj' to 'proj2': Device or resource busy\n");
    const read = await bash(
      'cat proj2/vault/secret.txt 2>/dev/null || echo no-new; cat proj/vault/secret.txt 2>/dev/null || echo no-old',
    );
    expect(read.stdout).toBe('no-new\nno-old\n');
    expect(await readFile(join(layout.alice, 'proj2', 'vault', 'secret.txt'))).toMatchObject({ ok: false });
    expect(await readFile(join(layout.alice, 'proj', 'vault', 'secret.txt'))).toMatchObject({
      ok: false,
      error: { classification: 'permission_denied' },
    });
    expect(readdirSync(layout.alice).sort()).toEqual(['proj']);
  });

  test('the denied directory itself cannot be moved or renamed either; siblings and the rest of proj stay usable', async () => {
    const result = await bash(
      'mv proj/vault vault2 2>/dev/null || echo no-move; mv proj/vault proj/v2 2>/dev/null || echo no-rename; mv proj/notes.txt proj/notes2.txt && cat proj/notes2.txt',
    );
    expect(result.stdout).toBe('no-move\nno-rename\nopen notes\n');
    expect(readdirSync(join(layout.alice, 'proj')).sort()).toEqual(['notes2.txt', 'vault']);
  });
});
