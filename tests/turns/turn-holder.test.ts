/**
 * Holder names and "provably dead", with real processes: a holder created by a child process is alive
 * while the child runs and provably dead once it exited; this process's own holder, a malformed one,
 * and one from another machine are never called dead.
 */
import { expect, test } from 'bun:test';
import { join } from 'node:path';
import { createTurnHolder, isHolderProvablyDead } from '../../src/turns/turn-holder.ts';

const MODULE = join(import.meta.dir, '..', '..', 'src', 'turns', 'turn-holder.ts');

test('a child process’s holder: alive while it runs, provably dead after it exited', async () => {
  const child = Bun.spawn(
    [
      process.execPath,
      '-e',
      `const { createTurnHolder } = await import(${JSON.stringify(MODULE)}); console.log(createTurnHolder()); await Bun.stdin.text();`,
    ],
    { stdin: 'pipe', stdout: 'pipe', stderr: 'inherit' },
  );
  const reader = child.stdout.getReader();
  let text = '';
  while (!text.includes('\n')) text += new TextDecoder().decode((await reader.read()).value);
  const holder = text.trim();
  expect(holder.split('/')[3]).toBe(String(child.pid));
  expect(isHolderProvablyDead(holder)).toBe(false);
  child.stdin.end();
  await child.exited;
  expect(isHolderProvablyDead(holder)).toBe(true);
});

test('a pid now running with another start time is dead (reused); this process, another machine or namespace, a malformed name never are', () => {
  const own = createTurnHolder();
  expect(isHolderProvablyDead(own)).toBe(false);
  const [version, bootId, namespace, pid, started] = own.split('/');
  expect(isHolderProvablyDead(`${version}/other-boot/${namespace}/999999/1/x`)).toBe(false);
  expect(isHolderProvablyDead(`${version}/${bootId}/1/999999/1/x`)).toBe(false);
  // pid 1 runs, with another start time than the one named: that is pid reuse, so the named one is dead.
  expect(isHolderProvablyDead(`${version}/${bootId}/${namespace}/1/${Number(started) + 1}/x`)).toBe(true);
  expect(isHolderProvablyDead(`${version}/${bootId}/${namespace}/${pid}/${started}/another-runner`)).toBe(
    false,
  );
  expect(isHolderProvablyDead('garbage')).toBe(false);
});
