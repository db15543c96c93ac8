/**
 * Each user's commands run as that user's own uid, with real bubblewrap: two users' commands get two
 * uids, a granted directory's group opens it to the users who carry it, and a workspace still owned by
 * the one uid of earlier versions is refused until it is migrated.
 */
import { expect, test } from 'bun:test';
import { chmodSync, chownSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_SANDBOX_ID_RANGE } from '../../src/sandbox/sandbox-id-range.ts';
import { computeReachableSet } from '../../src/tools/access/reachable-set.ts';
import { bashCommand } from '../helpers/bash-command.ts';
import { MemorySandboxIdRepository, testSandboxUsers } from '../helpers/test-sandbox-users.ts';
import { confinedTo } from './__fixtures__/fixture-sandbox.ts';
import { describeSandbox, useTestSandbox } from './sandbox-host.ts';

const asRoot = process.getuid?.() === 0;
const ids = new MemorySandboxIdRepository();

describeSandbox('one uid per user, in the real sandbox', () => {
  const setup = useTestSandbox({ users: testSandboxUsers(DEFAULT_SANDBOX_ID_RANGE, ids), legacyUid: 61000 });

  test.skipIf(!asRoot)('two users’ commands run as two uids, each the owner of what it writes', async () => {
    const alice = await setup.sandbox.identityFor('alice');
    const bob = await setup.sandbox.identityFor('bob');
    expect(alice.uid).not.toBe(bob.uid);
    const bobHome = join(setup.layout.base, 'bob-home');
    mkdirSync(bobHome);
    chownSync(bobHome, bob.uid, bob.gid);
    chmodSync(bobHome, 0o700);
    const ranAlice = await setup.sandbox.run(
      bashCommand('id -u; id -g; echo a > mine.txt', setup.layout.alice, confinedTo(setup.layout.alice)),
    );
    const ranBob = await setup.sandbox.run(
      bashCommand('id -u; id -g; echo b > mine.txt', bobHome, confinedTo(bobHome), { userId: 'bob' }),
    );
    expect(ranAlice.stdout).toBe(`${alice.uid}\n${alice.gid}\n`);
    expect(ranBob.stdout).toBe(`${bob.uid}\n${bob.gid}\n`);
    expect(statSync(join(setup.layout.alice, 'mine.txt')).uid).toBe(alice.uid);
    expect(statSync(join(bobHome, 'mine.txt')).uid).toBe(bob.uid);
  });

  test.skipIf(!asRoot)(
    'a granted directory of the grant’s group: its users write there, another user’s command cannot',
    async () => {
      const shared = join(setup.layout.base, 'shared');
      mkdirSync(shared);
      const group = await ids.allocate('grant', shared, DEFAULT_SANDBOX_ID_RANGE, '');
      chownSync(shared, 0, group);
      chmodSync(shared, 0o2770);
      const reach = computeReachableSet({
        workspaces: [{ path: shared, access: 'read-write', kind: 'granted' }],
        workingDirectory: shared,
        homeDirectory: shared,
        confined: true,
        protectedPaths: [],
      });
      const wrote = await setup.sandbox.run(bashCommand('echo hi > note.txt && echo wrote', shared, reach));
      expect(wrote.stdout).toBe('wrote\n');
      const note = statSync(join(shared, 'note.txt'));
      // umask 0002 and the setgid directory: the note is the group's, writable by it.
      expect([note.gid, note.mode & 0o777]).toEqual([group, 0o664]);
      const appended = await setup.sandbox.run(
        bashCommand('echo more >> note.txt && echo appended', shared, reach, { userId: 'carol' }),
      );
      expect(appended.stdout).toBe('appended\n');
      // Without the group (the directory is not among the call's roots as a grant: another path), no entry.
      const other = join(setup.layout.base, 'other');
      mkdirSync(other);
      chownSync(other, 0, group);
      chmodSync(other, 0o2770);
      await expect(
        setup.sandbox.run(bashCommand('true', other, confinedTo(other), { userId: 'carol' })),
      ).rejects.toThrow('Permission denied');
    },
  );

  test.skipIf(!asRoot)(
    'a workspace still owned by the uid of earlier versions is refused, naming the command',
    async () => {
      const old = join(setup.layout.base, 'old-workspace');
      mkdirSync(old);
      chownSync(old, 61000, 61000);
      writeFileSync(join(old, 'kept.txt'), 'x');
      await expect(setup.sandbox.run(bashCommand('true', old, confinedTo(old)))).rejects.toThrow(
        `The workspace ${old} still belongs to uid 61000 (MANGO_SANDBOX_UID), the one uid every user's commands ran as before each user had their own: commands cannot run there until an operator runs \`mango workspace migrate-owners\`.`,
      );
      const alice = await setup.sandbox.identityFor('alice');
      chownSync(old, alice.uid, alice.gid);
      const ran = await setup.sandbox.run(bashCommand('echo ran', old, confinedTo(old)));
      expect(ran.stdout).toBe('ran\n');
    },
  );
});
