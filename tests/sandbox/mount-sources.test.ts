/**
 * The swap attack, through the real tool path with real bubblewrap: one chat of a user is confined to
 * `~/sub`, while another process of the same user exchanges `sub` with a symlink to a directory outside
 * every workspace (`renameat2(RENAME_EXCHANGE)`, about 3000 times a second). Every bash call of the
 * confined chat tries to read, list, create and change the outside directory; none may ever succeed,
 * with the warm pool on and off. A call may fail while the swap runs; it never mounts anything else.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HeldMount } from '../../src/sandbox/bubblewrap-mount-plan.ts';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import {
  MountSourceError,
  mountSourcesUnchanged,
  openMountSources,
} from '../../src/sandbox/mount-sources.ts';
import { handToSandboxUser } from '../../src/sandbox/sandbox-file-owner.ts';
import { computeReachableSet } from '../../src/tools/access/reachable-set.ts';
import { buildShellTool } from '../../src/tools/builtin/build-shell-tool.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { ShellCommandResult } from '../../src/tools/shell/run-shell-command.ts';
import {
  createSandboxLayout,
  createTestSandbox,
  describeSandbox,
  type SandboxLayout,
} from './sandbox-host.ts';

const EXCHANGER = join(import.meta.dir, '..', 'helpers', 'rename-exchanger.ts');
const MAX_CALLS = 300;
/** Each pool setting gets this long at most, so both together stay under about 20 s. */
const BUDGET_MS = 8000;
const SENTINEL_TEXT = 'outside-sentinel-bytes';
const SUB_MARKER = 'inside-sub-marker';

/** Every entry of `directory` (and itself): name, type, mode, owner, size and bytes. */
function snapshot(directory: string): string[] {
  const describe = (path: string, name: string) => {
    const stats = lstatSync(path);
    const bytes = stats.isFile() ? readFileSync(path, 'utf8') : '';
    return `${name} ${stats.mode.toString(8)} ${stats.uid}:${stats.gid} ${stats.size} ${JSON.stringify(bytes)}`;
  };
  return [
    describe(directory, '.'),
    ...readdirSync(directory)
      .sort()
      .map((name) => describe(join(directory, name), name)),
  ];
}

describe('openMountSources and mountSourcesUnchanged', () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'mango-mount-sources-')));
  afterAll(() => rmSync(base, { recursive: true, force: true }));
  const mount = (source: string, overrides: Partial<HeldMount> = {}): HeldMount => ({
    source,
    destination: '/inside',
    readOnly: false,
    required: true,
    kind: 'directory',
    covers: false,
    ...overrides,
  });

  test('each source gets a descriptor of its own, numbered from the first, in plan order', () => {
    const one = join(base, 'one');
    mkdirSync(one);
    writeFileSync(join(base, 'file'), 'x');
    const opened = openMountSources(
      ['--x', mount(one), mount(join(base, 'file'), { readOnly: true, kind: 'file', destination: '/f' })],
      5,
    );
    try {
      expect(opened.argv).toEqual(['--x', '--bind-fd', '5', '/inside', '--ro-bind-fd', '6', '/f']);
      expect(opened.descriptors).toHaveLength(2);
      expect(opened.identities.map((identity) => identity.descriptor)).toEqual([5, 6]);
      expect(mountSourcesUnchanged(opened.identities)).toBe(true);
    } finally {
      opened.close();
    }
  });

  test('a source that is a link, or lies below one, fails with mount_source_changed and opens nothing', () => {
    const real = join(base, 'real');
    mkdirSync(join(real, 'inner'), { recursive: true });
    symlinkSync(real, join(base, 'swapped'));
    for (const source of [join(base, 'swapped'), join(base, 'swapped', 'inner')]) {
      let thrown: unknown;
      try {
        openMountSources([mount(source)], 5);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(MountSourceError);
      expect((thrown as MountSourceError).code).toBe('mount_source_changed');
      expect((thrown as MountSourceError).message).toBe(
        `A directory this call mounts changed while its sandbox was built: ${source} is a symbolic link or lies below one now. Nothing was mounted in its place and the command did not run.`,
      );
    }
  });

  test('a missing optional source is left out; a missing required one fails', () => {
    const gone = join(base, 'gone');
    const opened = openMountSources([mount(gone, { required: false })], 5);
    expect([opened.argv, opened.descriptors]).toEqual([[], []]);
    expect(mountSourcesUnchanged(opened.identities)).toBe(true);
    mkdirSync(gone);
    // It appeared since: a sandbox built without it is not the one for the call.
    expect(mountSourcesUnchanged(opened.identities)).toBe(false);
    rmSync(gone, { recursive: true });
    expect(() => openMountSources([mount(gone)], 5)).toThrow(`${gone} does not exist`);
  });

  test('a source or a covered path replaced at the same path is noticed', () => {
    const root = join(base, 'root');
    mkdirSync(root);
    writeFileSync(join(root, 'token'), 'old');
    const opened = openMountSources(
      [mount(root), mount(root, { destination: join(root, 'token'), covers: true, readOnly: true })],
      5,
    );
    opened.close();
    writeFileSync(join(root, 'token.new'), 'new');
    renameSync(join(root, 'token.new'), join(root, 'token'));
    expect(mountSourcesUnchanged(opened.identities)).toBe(false);
    const again = openMountSources([mount(root)], 5);
    again.close();
    renameSync(root, join(base, 'root-old'));
    mkdirSync(root);
    expect(mountSourcesUnchanged(again.identities)).toBe(false);
  });
});

describeSandbox(
  'a tenant swapping a confined chat’s directory with a symlink while the chat runs bash',
  () => {
    let layout: SandboxLayout;
    let sentinel: string;
    const probe = createTestSandbox();

    beforeAll(async () => {
      layout = await createSandboxLayout(probe);
      // Writable by anyone, so a sandbox that mounted it could change it and the snapshot would show it.
      sentinel = join(layout.elsewhere, 'sentinel');
      mkdirSync(sentinel);
      chmodSync(sentinel, 0o777);
      writeFileSync(join(sentinel, 'secret.txt'), `${SENTINEL_TEXT}\n`);
      chmodSync(join(sentinel, 'secret.txt'), 0o666);
    });
    afterAll(() => {
      probe.dispose();
      layout.remove();
    });

    for (const maxIdle of [4, 0]) {
      test(`a confined chat's sandbox never mounts what a swapped symlink points at (pool size ${maxIdle})`, async () => {
        const sandbox: BubblewrapSandbox = createTestSandbox({ pool: { maxIdle, idleMs: 30_000 } });
        const registry = new ToolRegistry();
        registry.register(buildShellTool('bash', { sandbox: () => sandbox }));
        const parent = join(layout.alice, `swap-${maxIdle}`);
        const sub = join(parent, 'sub');
        mkdirSync(sub, { recursive: true });
        await handToSandboxUser(parent, 'alice', sandbox);
        await handToSandboxUser(sub, 'alice', sandbox);
        writeFileSync(join(sub, 'marker.txt'), `${SUB_MARKER}\n`, { mode: 0o644 });
        symlinkSync(sentinel, join(parent, 'link'));
        const reachable = computeReachableSet({
          workspaces: [{ path: layout.alice, access: 'read-write', kind: 'personal' }],
          workingDirectory: sub,
          homeDirectory: layout.alice,
          confined: true,
          protectedPaths: [],
        });
        const before = snapshot(sentinel);
        const exchanger = Bun.spawn([process.execPath, EXCHANGER, parent, 'sub', 'link'], {
          stdin: 'pipe',
          stdout: 'pipe',
          stderr: 'pipe',
        });
        const breaches: string[] = [];
        const outcomes = { ran: 0, refused: 0 };
        try {
          const end = performance.now() + BUDGET_MS;
          for (
            let call = 0;
            call < MAX_CALLS && performance.now() < end && breaches.length === 0;
            call += 1
          ) {
            const outcome = await executeTool(
              'bash',
              {
                command: `cat ${sub}/secret.txt ./secret.txt ./marker.txt 2>/dev/null; ls -a . ${sub} 2>/dev/null; touch ./touched-${call} ${sub}/touched-${call} 2>/dev/null; chmod 0600 ./secret.txt 2>/dev/null; true`,
              },
              { userId: 'alice', chatId: 'confined-chat', reachable },
              { enabled: true, parameters: {} },
              { registry },
            );
            if (!outcome.ok) {
              outcomes.refused += 1;
              continue;
            }
            const result = outcome.result as ShellCommandResult;
            if (result.stdout.includes(SUB_MARKER)) outcomes.ran += 1;
            if (result.stdout.includes(SENTINEL_TEXT) || result.stdout.includes('secret.txt')) {
              breaches.push(`call ${call}: ${result.stdout}`);
            }
          }
        } finally {
          exchanger.stdin.end();
          await exchanger.exited;
          await sandbox.poolSettled();
          sandbox.dispose();
        }
        const exchanged = /^exchanged (\d+)\n$/.exec(await new Response(exchanger.stdout).text());
        expect(await new Response(exchanger.stderr).text()).toBe('');
        expect(Number(exchanged?.[1])).toBeGreaterThan(100);
        expect(breaches).toEqual([]);
        expect(snapshot(sentinel)).toEqual(before);
        // Not vacuous: calls did run in the chat's own directory while the swap went on.
        expect(outcomes.ran).toBeGreaterThan(0);
        console.log(`pool ${maxIdle}: ${outcomes.ran} calls ran in sub, ${outcomes.refused} refused`);
        rmSync(parent, { recursive: true, force: true });
      }, 30_000);
    }
  },
);
