/**
 * The sandbox reaper kills, when its owner ends in any way, exactly the process groups still
 * registered with it, and then exits itself. The groups are `sleep`s this test starts in sessions of
 * their own (Bun's `detached`, so each pid is its group id); no sandbox is needed.
 */
import { afterEach, expect, test } from 'bun:test';
import { join } from 'node:path';
import { waitUntil } from '../helpers/wait-until.ts';
import { isProcessGone, readProcessStatus } from '../tools/shell/process-table.ts';

const FIXTURE = join(import.meta.dir, '__fixtures__', 'reaper-process.ts');
const started: Bun.Subprocess[] = [];

afterEach(() => {
  // A failed assertion must not leave sleeps behind; each is this test's own child, killed by pid.
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

function startGroup(): Bun.Subprocess {
  const child = Bun.spawn(['sleep', '60'], { stdio: ['ignore', 'ignore', 'ignore'], detached: true });
  started.push(child);
  return child;
}

/** Whether `child` ended within `limitMs`, and by which signal. */
async function endedBy(
  child: Bun.Subprocess,
  limitMs: number,
): Promise<Bun.Subprocess['signalCode'] | 'running'> {
  let ended = false;
  void child.exited.then(() => {
    ended = true;
  });
  return (await waitUntil(() => ended, limitMs)) ? child.signalCode : 'running';
}

async function ownerEnds(ending: 'exit' | 'SIGKILL', register: number[], forget: number[]): Promise<number> {
  const owner = Bun.spawn([process.execPath, FIXTURE, register.join(','), forget.join(','), ending], {
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const reaperPid = Number((await new Response(owner.stdout).text()).trim());
  await owner.exited;
  expect(owner.signalCode).toBe(ending === 'SIGKILL' ? 'SIGKILL' : null);
  expect(reaperPid).toBeGreaterThan(1);
  return reaperPid;
}

for (const ending of ['exit', 'SIGKILL'] as const) {
  test(`on its owner's ${ending}, registered groups are killed and forgotten or unknown ones are not`, async () => {
    const registered = [startGroup(), startGroup()];
    const forgotten = startGroup();
    const unknown = startGroup();
    const reaperPid = await ownerEnds(
      ending,
      [...registered.map((child) => child.pid), forgotten.pid],
      [forgotten.pid],
    );
    for (const child of registered) expect(await endedBy(child, 5000)).toBe('SIGKILL');
    // The reaper is gone after its job (it was the owner's child; init reaps it once the owner ended).
    expect(await waitUntil(() => isProcessGone(reaperPid), 5000)).toBe(true);
    // The reaper has done all it will do: the others are alive now, so it left them alone.
    for (const child of [forgotten, unknown]) {
      expect(child.exitCode).toBeNull();
      expect(readProcessStatus(child.pid)?.state).not.toBe('Z');
    }
  });
}
