import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { handToSandboxUser } from '../../src/sandbox/sandbox-file-owner.ts';
import { computeReachableSet, type ReachableSet } from '../../src/tools/access/reachable-set.ts';
import type { ShellCommandResult } from '../../src/tools/shell/run-shell-command.ts';
import { liveProcessesWith } from '../helpers/live-processes.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import {
  createSandboxLayout,
  createTestSandbox,
  describeSandbox,
  type SandboxLayout,
} from './sandbox-host.ts';

interface Call {
  cwd?: string;
  reachable?: ReachableSet;
  deniedPaths?: string[];
  deniedEnvVars?: string[];
}

/** Sandbox processes (bubblewrap's outer process; the waiter inside is its child) whose plan has `cwd` as its directory. */
function sandboxProcessesIn(cwd: string): Promise<number[]> {
  return liveProcessesWith(`\0--chdir\0${cwd}\0`);
}

describeSandbox('the warm pool of sandboxes built ahead of the call', () => {
  let layout: SandboxLayout;
  let sandbox: BubblewrapSandbox;
  const lines: string[] = [];
  beforeAll(async () => {
    sandbox = createTestSandbox({ pool: { maxIdle: 4, idleMs: 30_000 } }, lines);
    layout = await createSandboxLayout(sandbox);
  });
  afterAll(() => {
    sandbox.dispose();
    layout.remove();
  });

  /** Runs `command` and returns its result and whether it ran in a pre-built sandbox (its log line). */
  async function run(
    target: BubblewrapSandbox,
    command: string,
    call: Call = {},
  ): Promise<{ result: ShellCommandResult; prebuilt: boolean }> {
    lines.length = 0;
    const result = await target.run({
      shell: 'bash',
      command,
      cwd: call.cwd ?? layout.alice,
      reachable: call.reachable ?? layout.reachable,
      deniedPaths: call.deniedPaths ?? [],
      deniedEnvVars: call.deniedEnvVars ?? [],
      interpreterPath: '/usr/bin/bash',
      userId: 'alice',
      chatId: 'chat-1',
      timeoutMs: 20_000,
      maxOutputBytes: 65_536,
    });
    const logged = lines.map((line) => JSON.parse(line) as { prebuilt?: boolean });
    expect(logged.length).toBe(1);
    await target.poolSettled();
    return { result, prebuilt: logged[0]?.prebuilt === true };
  }

  test('a call of the same plan runs in the pre-built sandbox; a call with another reachable set never does', async () => {
    const first = await run(sandbox, 'echo first');
    expect([first.result.stdout, first.result.exitCode]).toEqual(['first\n', 0]);
    expect([...sandbox.waitingSandboxes().values()]).toEqual([1]);

    // Only the read-only grant: the pre-built sandbox (which mounts alice's workspace) is not for it.
    const grantOnly = computeReachableSet({
      workspaces: [{ path: layout.projects, access: 'read-only', kind: 'granted' }],
      workingDirectory: layout.projects,
      homeDirectory: layout.projects,
      confined: false,
      protectedPaths: [layout.data],
    });
    const other = await run(
      sandbox,
      `ls '${layout.alice}' >/dev/null 2>&1 && echo sees-alice || echo no-alice`,
      {
        cwd: layout.projects,
        reachable: grantOnly,
      },
    );
    expect([other.result.stdout, other.prebuilt]).toEqual(['no-alice\n', false]);
    // Both plans now have one waiting sandbox each; the first one's is still there, unused.
    expect([...sandbox.waitingSandboxes().values()]).toEqual([1, 1]);

    const again = await run(sandbox, 'ls -d "$PWD" && cat ../bob/diary.txt 2>/dev/null || echo no-bob');
    expect([again.result.stdout, again.prebuilt]).toEqual([`${layout.alice}\nno-bob\n`, true]);

    // The same working directory with a denied path is another plan as well.
    writeFileSync(join(layout.alice, 'secret.txt'), 'secret\n');
    const denied = await run(sandbox, 'cat secret.txt 2>/dev/null || echo covered', {
      deniedPaths: [join(layout.alice, 'secret.txt')],
    });
    expect([denied.result.stdout, denied.prebuilt]).toEqual(['covered\n', false]);
    const deniedAgain = await run(sandbox, 'cat secret.txt 2>/dev/null || echo covered', {
      deniedPaths: [join(layout.alice, 'secret.txt')],
    });
    expect([deniedAgain.result.stdout, deniedAgain.prebuilt]).toEqual(['covered\n', true]);
  });

  test('the command and the environment reach a pre-built sandbox only when the call starts', async () => {
    await run(sandbox, 'true');
    const withLang = await run(
      sandbox,
      'echo "lang=$(printenv LANG || echo unset) parent=$PPID"; tr "\\0" "\\n" < /proc/1/environ',
    );
    expect(withLang.prebuilt).toBe(true);
    // The waiter is PID 1, with nothing in its environment but the PWD bubblewrap sets.
    expect(withLang.result.stdout).toBe(
      `lang=${process.env.LANG ?? 'unset'} parent=1\nPWD=${layout.alice}\n`,
    );
    const withoutLang = await run(sandbox, 'echo "lang=$(printenv LANG || echo unset)"', {
      deniedEnvVars: ['LANG'],
    });
    expect([withoutLang.result.stdout, withoutLang.prebuilt]).toEqual(['lang=unset\n', true]);
  });

  test('a covered path replaced since the sandbox was built makes the next call build its own', async () => {
    const token = join(layout.alice, 'token.txt');
    writeFileSync(token, 'old-token\n');
    const call = { deniedPaths: [token] };
    await run(sandbox, 'true', call);
    // An editor's save: a new file renamed over the covered one. The waiting sandbox covered the old one.
    writeFileSync(`${token}.new`, 'new-token\n');
    renameSync(`${token}.new`, token);
    const after = await run(sandbox, 'cat token.txt 2>/dev/null || echo covered', call);
    expect([after.result.stdout, after.prebuilt]).toEqual(['covered\n', false]);
  });

  test('a root replaced since the sandbox was built (another directory at its path) is not handed over', async () => {
    const root = join(layout.alice, 'replaced-root');
    mkdirSync(root);
    await handToSandboxUser(root, 'alice', sandbox);
    writeFileSync(join(root, 'which.txt'), 'old\n');
    const reachable = computeReachableSet({
      workspaces: [{ path: layout.alice, access: 'read-write', kind: 'personal' }],
      workingDirectory: root,
      homeDirectory: layout.alice,
      confined: true,
      protectedPaths: [],
    });
    const first = await run(sandbox, 'cat which.txt', { cwd: root, reachable });
    expect(first.result.stdout).toBe('old\n');
    // The waiting sandbox mounts the old directory; the path now names a new one.
    renameSync(root, `${root}-old`);
    mkdirSync(root);
    await handToSandboxUser(root, 'alice', sandbox);
    writeFileSync(join(root, 'which.txt'), 'new\n');
    const after = await run(sandbox, 'cat which.txt', { cwd: root, reachable });
    expect([after.result.stdout, after.prebuilt]).toEqual(['new\n', false]);
    const again = await run(sandbox, 'cat which.txt', { cwd: root, reachable });
    expect([again.result.stdout, again.prebuilt]).toEqual(['new\n', true]);
  });

  test('at most maxIdle sandboxes wait; idle ones are killed after idleMs, and all of them by dispose', async () => {
    const small = createTestSandbox({ pool: { maxIdle: 2, idleMs: 400 } }, lines);
    try {
      const directories = ['one', 'two', 'three'].map((name) => join(layout.alice, `pool-${name}`));
      for (const directory of directories) {
        mkdirSync(directory);
        await handToSandboxUser(directory, 'alice', small);
        await run(small, 'true', { cwd: directory });
      }
      expect([...small.waitingSandboxes().values()]).toEqual([1, 1]);
      // The oldest plan's sandbox made room for the newest: two plans wait.
      expect((await sandboxProcessesIn(directories[0] as string)).length).toBe(0);
      expect((await sandboxProcessesIn(directories[2] as string)).length).toBe(1);
      expect(await waitUntil(() => small.waitingSandboxes().size === 0, 10_000)).toBe(true);
      const gone = async (directory: string) => (await sandboxProcessesIn(directory)).length === 0;
      expect(await waitUntil(() => gone(directories[2] as string), 5_000)).toBe(true);

      await run(small, 'true', { cwd: directories[1] });
      expect((await sandboxProcessesIn(directories[1] as string)).length).toBe(1);
      small.dispose();
      expect(await waitUntil(() => gone(directories[1] as string), 5_000)).toBe(true);
    } finally {
      small.dispose();
    }
  }, 20_000);

  test('calls, and sandboxes that expired unused, leave no descriptor open in the server', async () => {
    const short = createTestSandbox({ pool: { maxIdle: 2, idleMs: 100 } }, lines);
    // Collected first, so descriptors other tests' finished processes still held do not count.
    const descriptors = () => {
      Bun.gc(true);
      return readdirSync('/proc/self/fd').length;
    };
    try {
      const expired = () => waitUntil(() => short.waitingSandboxes().size === 0, 10_000);
      await run(short, 'true');
      expect(await expired()).toBe(true);
      const before = descriptors();
      for (let index = 0; index < 10; index += 1) await run(short, 'echo used');
      for (let index = 0; index < 3; index += 1) {
        await run(short, 'true');
        expect(await expired()).toBe(true);
      }
      expect(short.waitingSandboxes().size).toBe(0);
      // Thirteen calls and three expiries: before the fix each left one or two descriptors behind. A
      // descriptor the runtime holds for a moment (a finished child's pipe not yet collected, the test
      // runner's own) goes within the wait; a leaked one never does.
      expect(await waitUntil(() => descriptors() <= before, 5_000)).toBe(true);
    } finally {
      short.dispose();
    }
  }, 20_000);

  test('many concurrent calls over three plans: each runs in a sandbox of its own plan', async () => {
    const directories = ['red', 'green', 'blue'].map((name) => join(layout.alice, `concurrent-${name}`));
    const plans = await Promise.all(
      directories.map(async (directory) => {
        mkdirSync(directory);
        await handToSandboxUser(directory, 'alice', sandbox);
        const reachable = computeReachableSet({
          workspaces: [{ path: directory, access: 'read-write', kind: 'personal' }],
          workingDirectory: directory,
          homeDirectory: directory,
          confined: true,
          protectedPaths: [],
        });
        return { directory, reachable };
      }),
    );
    const seen: string[] = [];
    lines.length = 0;
    let next = 0;
    const worker = async () => {
      while (next < 60) {
        const index = next;
        next += 1;
        const plan = plans[index % plans.length] as (typeof plans)[number];
        const result = await sandbox.run({
          shell: 'bash',
          command: `echo "${index} $PWD"; ls -d ${directories.map((path) => `'${path}'`).join(' ')} 2>/dev/null`,
          cwd: plan.directory,
          reachable: plan.reachable,
          deniedPaths: [],
          deniedEnvVars: [],
          interpreterPath: '/usr/bin/bash',
          userId: 'alice',
          chatId: `chat-${index % plans.length}`,
          timeoutMs: 20_000,
          maxOutputBytes: 4096,
        });
        // Its own directory, and no other plan's directory, exists in its sandbox.
        if (result.stdout !== `${index} ${plan.directory}\n${plan.directory}\n`) seen.push(result.stdout);
      }
    };
    await Promise.all(Array.from({ length: 12 }, worker));
    expect(seen).toEqual([]);
    // The pool took part: some calls ran in sandboxes built ahead of them.
    const prebuilt = lines.filter((line) => (JSON.parse(line) as { prebuilt?: boolean }).prebuilt === true);
    expect(lines.length).toBe(60);
    expect(prebuilt.length).toBeGreaterThan(0);
  }, 60_000);

  test('with the pool off every call builds its own sandbox and nothing waits', async () => {
    const off = createTestSandbox({ pool: { maxIdle: 0 } }, lines);
    try {
      await run(off, 'true');
      const second = await run(off, 'echo ok');
      expect([second.result.stdout, second.prebuilt]).toEqual(['ok\n', false]);
      expect(off.waitingSandboxes().size).toBe(0);
    } finally {
      off.dispose();
    }
  });
});
