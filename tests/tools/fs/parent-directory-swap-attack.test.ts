/**
 * write_file creating parent directories against a tenant who exchanges a directory of the path with a
 * link to a directory outside every workspace (`renameat2(RENAME_EXCHANGE)`, as fast as it can). The
 * outside directory holds 30 root-owned empty directories named like the ones write_file creates;
 * however the race falls, all 30 are still there afterwards with their owner and mode, and nothing new
 * appeared beside them.
 */
import { afterEach, beforeEach, expect, setDefaultTimeout, test } from 'bun:test';
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { hostShellSandbox, installShellSandbox } from '../../../src/sandbox/host-shell-sandbox.ts';
import type { ShellSandbox } from '../../../src/sandbox/shell-sandbox.ts';
import { createUnsandboxedShell } from '../../../src/sandbox/unsandboxed-shell.ts';
import { createChat } from '../../helpers/call-tool.ts';
import { describeFileWork, shareWithSandboxUser } from '../../helpers/chat-file-workers.ts';
import { startHostileTenant } from '../../helpers/hostile-tenant.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

const ITERATIONS = 300;
const TIME_LIMIT_MS = 10_000;
// Each attack runs up to its time limit, under whatever else the machine is doing.
setDefaultTimeout(TIME_LIMIT_MS + 30_000);
const SENTINELS = 30;
/** The sandbox uid write_file hands created directories to. */
const SANDBOX_OWNER = { uid: 61000, gid: 61001 };

describeFileWork('parent-directory exchanges', (fileWork) => {
  let temp: ReturnType<typeof makeTempDirectory>;
  let previous: ShellSandbox;

  beforeEach(() => {
    temp = makeTempDirectory('mango-parent-swap-');
    previous = hostShellSandbox();
    installShellSandbox({ ...createUnsandboxedShell(), fileOwner: async () => SANDBOX_OWNER });
  });
  afterEach(() => {
    installShellSandbox(previous);
    temp.remove();
  });

  function sentinelName(index: number): string {
    return `X${index % SENTINELS}`;
  }

  test('exchanging a parent with a link outside never chowns or removes a host directory', async () => {
    const workspace = join(temp.path, 'ws');
    const outside = join(temp.path, 'host');
    mkdirSync(join(workspace, 'd'), { recursive: true });
    mkdirSync(outside);
    for (let index = 0; index < SENTINELS; index++)
      mkdirSync(join(outside, sentinelName(index)), { mode: 0o755 });
    const describeOutside = () =>
      readdirSync(outside)
        .sort()
        .map((name) => {
          const stats = lstatSync(join(outside, name));
          return { name, mode: stats.mode, uid: stats.uid, gid: stats.gid };
        });
    const before = describeOutside();
    expect(before).toHaveLength(SENTINELS);
    expect(before[0]).toEqual({ name: 'X0', mode: constants.S_IFDIR | 0o755, uid: 0, gid: 0 });
    symlinkSync(outside, join(workspace, 'dlink'));
    await shareWithSandboxUser(workspace, fileWork);
    // The workspace's own `d`, wherever the exchange has put its name: the test cleans up through it.
    const realD = openSync(join(workspace, 'd'), constants.O_RDONLY | constants.O_DIRECTORY);
    const chat = createChat({ workingDirectory: workspace, confined: true, fileWork });
    const tenant = await startHostileTenant('exchange', join(workspace, 'd'), join(workspace, 'dlink'));
    let landed = 0;
    try {
      const started = Date.now();
      for (let round = 0; round < ITERATIONS && Date.now() - started < TIME_LIMIT_MS; round++) {
        const name = sentinelName(round);
        const outcome = await chat.call('write_file', { path: `d/${name}/f.txt`, content: 'x' });
        if (outcome.ok) landed++;
        rmSync(join(`/proc/self/fd/${realD}`, name), { recursive: true, force: true });
      }
    } finally {
      await tenant.stop();
      closeSync(realD);
    }
    expect(describeOutside()).toEqual(before);
    // The resolver or the walk may refuse a call the exchange disturbed; not every one.
    expect(landed).toBeGreaterThan(0);
  });
});
