/**
 * A stdio server's program is really stopped when its connection has been idle for the pool's idle
 * time (shortened here), every process of its sandbox gone by pid, and the next call starts a new one;
 * a user past the connection cap loses their least recently used program the same way; and two chats
 * with different reach never share a program.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { computeReachableSet, type ReachableSet } from '../../src/tools/access/reachable-set.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { liveProcessesWith } from '../helpers/live-processes.ts';
import { holdsFor, waitUntil } from '../helpers/wait-until.ts';
import { createTestSandbox, describeSandbox } from '../sandbox/sandbox-host.ts';
import { readProcessStatus } from '../tools/shell/process-table.ts';
import { createExternalSetup, type ExternalSetup, probeServer } from './external-servers.ts';

const IDLE_MS = 1500;
/** An argument the probe ignores, by which the test finds the processes of one server in /proc. */
const marker = (server: string) => `--mango-idle-test-${process.pid}-${server}`;

function taggedProbe(name: string) {
  const probe = probeServer();
  return { ...probe, name, args: [...probe.args, marker(name)] };
}

const waitFor = (condition: () => Promise<boolean>, timeoutMs = 15_000) => waitUntil(condition, timeoutMs);

describeSandbox('an idle stdio server, in the real sandbox', () => {
  let sandbox: BubblewrapSandbox;
  let setup: ExternalSetup;

  beforeAll(async () => {
    sandbox = createTestSandbox();
    setup = await createExternalSetup(sandbox, [taggedProbe('first'), taggedProbe('second')], {
      pool: { idleMs: IDLE_MS, maxPerUser: 1 },
    });
  }, 60_000);
  afterAll(async () => {
    await setup.dispose();
    sandbox.dispose();
  }, 30_000);

  async function call(tool: string): Promise<unknown> {
    const registry = await setup.source.registryFor('alice');
    return executeTool(
      tool,
      { path: join(setup.layout.alice, 'note.txt') },
      { userId: 'alice', reachable: setup.aliceReachable, dataDirectory: setup.dataDirectory },
      undefined,
      { registry },
    );
  }

  test('is stopped after its idle time, every process gone; the next call starts a new one', async () => {
    await Bun.write(join(setup.layout.alice, 'note.txt'), 'note');
    // With a cap of one, listing both servers leaves one program; calling `first` makes it first's.
    expect(await call('mcp__first__read_path')).toEqual({
      ok: true,
      result: { content: [{ type: 'text', text: 'note' }] },
    });
    const before = await liveProcessesWith(marker('first'));
    // bubblewrap, its init in the new pid namespace and node: at least the program itself.
    expect(before.length).toBeGreaterThanOrEqual(1);
    // Still there, every pid of it, for the first third of the idle time (what did not happen: an
    // early stop)…
    const unchanged = async () => Bun.deepEquals(await liveProcessesWith(marker('first')), before);
    expect(await holdsFor(unchanged, IDLE_MS / 3)).toBe(true);
    // …and gone, every pid of it, after.
    expect(await waitFor(async () => (await liveProcessesWith(marker('first'))).length === 0)).toBe(true);
    // Each pid is gone, or a zombie whose parent has not collected it yet: none runs any more. The
    // sandbox's PID 1 leaves the list above as soon as it starts to exit (its command line is gone
    // then), but stays a sleeping process until the kernel has reaped the rest of its namespace.
    const ended = (pid: number) => [undefined, 'Z'].includes(readProcessStatus(pid)?.state);
    expect(await waitFor(async () => before.every(ended))).toBe(true);

    expect(await call('mcp__first__read_path')).toEqual({
      ok: true,
      result: { content: [{ type: 'text', text: 'note' }] },
    });
    const after = await liveProcessesWith(marker('first'));
    expect(after.length).toBe(before.length);
    expect(after.filter((pid) => before.includes(pid))).toEqual([]);
  }, 60_000);

  test('a user at the cap loses the least recently used program when another server is called', async () => {
    expect(await call('mcp__first__read_path')).toMatchObject({ ok: true });
    expect((await liveProcessesWith(marker('first'))).length).toBeGreaterThanOrEqual(1);
    expect(await call('mcp__second__read_path')).toMatchObject({ ok: true });
    expect((await liveProcessesWith(marker('second'))).length).toBeGreaterThanOrEqual(1);
    expect(await waitFor(async () => (await liveProcessesWith(marker('first'))).length === 0)).toBe(true);
  }, 60_000);

  test('two chats of one user with different reach get two programs, each seeing only its own', async () => {
    const { layout } = setup;
    const readme = join(layout.projects, 'readme.txt');
    // A second chat of alice's that also has the projects grant (read-only).
    const widerReach = computeReachableSet({
      workspaces: [
        { path: layout.alice, access: 'read-write', kind: 'personal' },
        { path: layout.projects, access: 'read-only', kind: 'granted' },
      ],
      workingDirectory: layout.alice,
      homeDirectory: layout.alice,
      // Not confined to its working directory: it reaches every workspace it lists.
      confined: false,
      protectedPaths: setup.aliceReachable.protectedPaths,
    });
    const registry = await setup.source.registryFor('alice');
    const read = (reachable: ReachableSet) =>
      executeTool(
        'mcp__first__read_path',
        { path: readme },
        { userId: 'alice', reachable, dataDirectory: setup.dataDirectory },
        undefined,
        { registry },
      );
    expect(await read(widerReach)).toEqual({
      ok: true,
      result: { content: [{ type: 'text', text: 'shared project readme\n' }] },
    });
    const widerPids = await liveProcessesWith(marker('first'));
    expect(await read(setup.aliceReachable)).toMatchObject({ ok: false });
    expect(JSON.stringify(await read(setup.aliceReachable))).toContain('cannot read: ENOENT');
    // The narrower chat's program is another one (the cap of one closed the wider chat's for it).
    const narrowerPids = await liveProcessesWith(marker('first'));
    expect(narrowerPids.length).toBeGreaterThanOrEqual(1);
    expect(narrowerPids.filter((pid) => widerPids.includes(pid))).toEqual([]);
  }, 60_000);
});
