/**
 * Waiting for a sandbox to be gone. A sandbox's PID 1 leaves every command-line match as soon as it
 * starts to exit (its memory, and with it its command line, goes first), but it is not gone until the
 * kernel has reaped the rest of its namespace; the wait returns only then, or at its limit.
 *
 * The rules are pinned with a process table and clock of the test's own, moved one look at a time;
 * the kernel's side with a real namespace whose PID 1 is held in its exit by a member it cannot reap
 * (one that joined from outside, whose parent outside is stopped), until the test lets that parent go.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync, readlinkSync } from 'node:fs';
import { descriptorReader } from '../../src/sandbox/descriptor-reader.ts';
import {
  HOST_TEARDOWN_WATCH,
  parseSandboxInitPid,
  TEARDOWN_LIMIT_MS,
  type TeardownWatch,
  waitForSandboxTeardown,
} from '../../src/sandbox/sandbox-teardown.ts';
import { identifyProcess, isProcessAlive, type ProcessIdentity } from '../helpers/process-identity.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { readProcessStatus } from '../tools/shell/process-table.ts';
import { describeSandbox } from './sandbox-host.ts';

const INIT = 4242;
const info = (pid: number) => `{\n    "child-pid": ${pid},\n    "mnt-namespace": 4026532178\n}`;

/**
 * The wait run against a process table holding one pid in `state` (a /proc state letter, or undefined
 * once it is gone) and a clock the test sets, one look at a time: after each look it either returns or
 * pauses, and a pause ends only when the test lets it look again.
 */
function steppedWait(initialState: string | undefined, limitMs: number, written = info(INIT)) {
  let state = initialState;
  let elapsed = 0;
  const looks: (string | undefined)[] = [];
  let paused = Promise.withResolvers<void>();
  let resumeWait: (() => void) | undefined;
  const watch: TeardownWatch = {
    isLive: (pid) => {
      expect(pid).toBe(INIT);
      looks.push(state);
      return state !== undefined && state !== 'Z';
    },
    now: () => elapsed,
    pause: () =>
      new Promise<void>((resolve) => {
        resumeWait = resolve;
        paused.resolve();
      }),
  };
  const returned = waitForSandboxTeardown(written, limitMs, watch).then(() => 'returned' as const);
  const outcome = () => Promise.race([paused.promise.then(() => 'paused' as const), returned]);
  return {
    looks,
    /** What the wait did after its first look. */
    first: outcome(),
    setState: (next: string | undefined) => {
      state = next;
    },
    setElapsed: (milliseconds: number) => {
      elapsed = milliseconds;
    },
    /** Lets the paused wait look again: whether it then paused for another look or returned. */
    async look(): Promise<'paused' | 'returned'> {
      const resume = resumeWait;
      if (resume === undefined) throw new Error('the wait is not paused');
      resumeWait = undefined;
      paused = Promise.withResolvers<void>();
      resume();
      return outcome();
    },
  };
}

/** Tells, at any point, whether `waiting` has settled. */
function watched(waiting: Promise<void>) {
  let returned = false;
  void waiting.then(() => {
    returned = true;
  });
  return { returned: () => returned };
}

describe('waiting for a sandbox to end', () => {
  test("reads the init's pid from bubblewrap's info JSON", () => {
    expect(parseSandboxInitPid(info(25938))).toBe(25938);
    expect(parseSandboxInitPid('')).toBeUndefined();
  });

  test.each([
    ['a zombie', 'Z'],
    ['gone', undefined],
  ])(
    'PID 1 out of every command-line match but still sleeping in its exit: the wait goes on until it is %s',
    async (_, end) => {
      // 'S': what an exiting PID 1 shows while the kernel reaps its namespace (its command line empty).
      const wait = steppedWait('S', TEARDOWN_LIMIT_MS);
      expect(await wait.first).toBe('paused');
      for (let look = 2; look <= 6; look += 1) expect(await wait.look()).toBe('paused');
      // The look after the namespace was reaped is the last.
      wait.setState(end);
      expect(await wait.look()).toBe('returned');
      expect(wait.looks).toEqual(['S', 'S', 'S', 'S', 'S', 'S', end]);
    },
  );

  test('a PID 1 that never ends is watched until the limit, not a look longer', async () => {
    const wait = steppedWait('S', 100);
    expect(await wait.first).toBe('paused');
    wait.setElapsed(99);
    expect(await wait.look()).toBe('paused');
    wait.setElapsed(100);
    expect(await wait.look()).toBe('returned');
    expect(wait.looks).toEqual(['S', 'S', 'S']);
  });

  test('one look when PID 1 is already gone; none without an info to read its pid from', async () => {
    const gone = steppedWait(undefined, TEARDOWN_LIMIT_MS);
    expect(await gone.first).toBe('returned');
    expect(gone.looks).toEqual([undefined]);
    const unknown = steppedWait('S', TEARDOWN_LIMIT_MS, 'no info');
    expect(await unknown.first).toBe('returned');
    expect(unknown.looks).toEqual([]);
  });
});

/** The state letter of `pid` and its command line ('' once its memory is released), or undefined. */
function processView(pid: number): { state: string; commandLine: string } | undefined {
  const status = readProcessStatus(pid);
  if (status === undefined) return undefined;
  try {
    return { state: status.state, commandLine: readFileSync(`/proc/${pid}/cmdline`, 'utf8') };
  } catch {
    return undefined;
  }
}

function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function pidNamespace(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return undefined;
  }
}

const asRoot = process.getuid?.() === 0;

describeSandbox('waiting for a real namespace whose PID 1 is held in its exit', () => {
  // Joining another process's PID namespace (nsenter) takes CAP_SYS_ADMIN.
  test.skipIf(!asRoot || Bun.which('nsenter') === null)(
    'returns only once the member it could not reap is reaped and PID 1 is gone',
    async () => {
      const sandbox = Bun.spawn(
        [
          'bwrap',
          '--unshare-pid',
          '--die-with-parent',
          '--dev-bind',
          '/',
          '/',
          '--info-fd',
          '3',
          // fixture: the sandbox's command, running until PID 1 is killed
          'sleep',
          '600',
        ],
        { stdio: ['ignore', 'ignore', 'pipe', 'pipe'] },
      );
      let member: Bun.Subprocess | undefined;
      let init: ProcessIdentity | undefined;
      try {
        const written = await descriptorReader(sandbox.stdio[3]).through('}', 15_000);
        const initPid = parseSandboxInitPid(written);
        if (initPid === undefined) {
          throw new Error(`bubblewrap gave no info: ${await new Response(sandbox.stderr).text()}`);
        }
        init = identifyProcess(initPid);
        // A member that joined the namespace from outside: its parent (nsenter) is not PID 1, so PID 1
        // cannot reap it; stopped, nsenter cannot either, so PID 1's exit waits for it.
        // fixture: the member's program, running until the namespace's end kills it
        member = Bun.spawn(['nsenter', '--target', String(initPid), '--pid', '--', 'sleep', '600'], {
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        const joiner = member.pid;
        let joined: number | undefined;
        const memberInside = () => {
          joined = children(joiner).find(
            (pid) =>
              pidNamespace(pid) === pidNamespace(initPid) &&
              processView(pid)?.commandLine.startsWith('sleep\0'),
          );
          return joined !== undefined;
        };
        expect(await waitUntil(memberInside, 15_000)).toBe(true);
        member.kill('SIGSTOP');
        expect(await waitUntil(() => readProcessStatus(joiner)?.state === 'T', 15_000)).toBe(true);

        // The sandbox's command is over: PID 1 dies, its namespace's members are killed with it.
        process.kill(initPid, 'SIGKILL');
        const exitingButHeld = () => {
          const view = processView(initPid);
          return view !== undefined && view.state !== 'Z' && view.commandLine === '';
        };
        // …and the member killed with it waits, a zombie, for its stopped parent.
        const memberKilled = () => readProcessStatus(joined as number)?.state === 'Z';
        expect(await waitUntil(() => exitingButHeld() && memberKilled(), 15_000)).toBe(true);

        const looks: boolean[] = [];
        let atReturn: { init: string | undefined; member: string | undefined } | undefined;
        const countingWatch: TeardownWatch = {
          ...HOST_TEARDOWN_WATCH,
          isLive: (pid) => {
            const live = HOST_TEARDOWN_WATCH.isLive(pid);
            looks.push(live);
            return live;
          },
        };
        // No limit: only the namespace's end may end this wait.
        const wait = watched(
          waitForSandboxTeardown(written, Number.POSITIVE_INFINITY, countingWatch).then(() => {
            atReturn = {
              init: readProcessStatus(initPid)?.state,
              member: readProcessStatus(joined as number)?.state,
            };
          }),
        );
        // It has seen PID 1 out of its command line, yet not gone, three times, and goes on waiting.
        expect(await waitUntil(() => looks.length >= 3 || wait.returned(), 15_000)).toBe(true);
        expect(wait.returned()).toBe(false);
        expect(exitingButHeld()).toBe(true);
        expect(looks.every((live) => live)).toBe(true);

        // Let nsenter reap its child: the namespace empties, PID 1 finishes, and the wait returns.
        member.kill('SIGCONT');
        expect(await waitUntil(wait.returned, 15_000)).toBe(true);
        expect(looks.at(-1)).toBe(false);
        expect(atReturn?.member).toBeUndefined();
        expect([undefined, 'Z']).toContain(atReturn?.init);
      } finally {
        // Only what is still the process this test started: a pid that has gone may be another's now.
        if (init !== undefined && isProcessAlive(init)) process.kill(init.pid, 'SIGKILL');
        member?.kill('SIGKILL');
        sandbox.kill('SIGKILL');
        await Promise.all([sandbox.exited, member?.exited]);
      }
    },
    60_000,
  );
});
