/**
 * A setuid program left behind by one tenant gives no host account another tenant's files.
 *
 * Through the API of a real server (SQLite and PostgreSQL, the real bubblewrap sandbox, the server as
 * root), alice's bash copies /bin/bash into her workspace, sets its setuid bit and opens her workspace
 * root to everyone (0711); bob's bash writes a secret into his. Then, on the host:
 * - `nobody` runs alice's setuid bash to read bob's secret: it cannot even reach the program, since
 *   the workspaces directory admits only the sandbox group;
 * - what the setuid program would have given, a process of alice's uid, cannot read bob's secret
 *   either, with the sandbox group (which passes the workspaces directory) or without it: bob's
 *   workspace belongs to bob's uid alone. The same process reads alice's own file, so the refusal is
 *   about bob's file, not about the way the process was started.
 * With one uid shared by every tenant, alice's setuid bash ran as that uid and read bob's secret.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import {
  NOBODY,
  runAsHostAccount,
  startTenantServer,
  type Tenant,
  type TenantServer,
} from '../helpers/tenant-server.ts';
import { BACKENDS } from '../helpers/test-database.ts';
import { describeSandbox } from './sandbox-host.ts';

describeSandbox('a setuid bash left in a workspace', () => {
  describe.each(BACKENDS)('on %s', (backend) => {
    let tenants: TenantServer;
    let alice: Tenant;
    let bob: Tenant;

    beforeAll(async () => {
      tenants = await startTenantServer(backend);
      alice = await tenants.addTenant('alice');
      bob = await tenants.addTenant('bob');
    }, 30_000);
    afterAll(() => tenants?.stop(), 30_000);

    test('neither nobody through it nor alice’s uid reads bob’s file', async () => {
      const secret = join(bob.workspace, 'secret.txt');
      expect(await bob.bash("printf 'bob-secret\\n' > secret.txt")).toEqual({
        exitCode: 0,
        signal: null,
        stdout: '',
        stderr: '',
      });
      const planted = await alice.bash(
        "cp /bin/bash suid-bash && chmod u+s suid-bash && chmod 711 . && printf 'alice-note\\n' > note.txt && id -u",
      );
      expect(planted).toMatchObject({ exitCode: 0, stderr: '' });
      const aliceUid = Number(planted.stdout.trim());
      const suidBash = join(alice.workspace, 'suid-bash');
      // The attack's setup really happened: a setuid bash of alice's, in a workspace root open to all.
      const program = statSync(suidBash);
      expect({ mode: program.mode & 0o7777, uid: program.uid }).toEqual({ mode: 0o4755, uid: aliceUid });
      expect(statSync(alice.workspace).mode & 0o7777).toBe(0o711);

      const aliceAlone = { uid: aliceUid, gid: aliceUid };
      const aliceInSandboxGroup = { ...aliceAlone, groups: [statSync(tenants.workspacesDirectory).gid] };
      // One comparison, so that a failure shows every attempt's outcome at once.
      expect({
        nobodyThroughTheSetuidBash: runAsHostAccount(NOBODY, [suidBash, '-p', '-c', `cat ${secret}`]),
        aliceUidAlone: runAsHostAccount(aliceAlone, ['cat', secret]),
        aliceUidInTheSandboxGroup: runAsHostAccount(aliceInSandboxGroup, ['cat', secret]),
        aliceUidReadingHerOwnFile: runAsHostAccount(aliceInSandboxGroup, [
          'cat',
          join(alice.workspace, 'note.txt'),
        ]),
      }).toEqual({
        nobodyThroughTheSetuidBash: {
          exitCode: 126,
          stdout: '',
          stderr: `/usr/bin/env: '${suidBash}': Permission denied\n`,
        },
        aliceUidAlone: { exitCode: 1, stdout: '', stderr: `cat: ${secret}: Permission denied\n` },
        aliceUidInTheSandboxGroup: { exitCode: 1, stdout: '', stderr: `cat: ${secret}: Permission denied\n` },
        aliceUidReadingHerOwnFile: { exitCode: 0, stdout: 'alice-note\n', stderr: '' },
      });
      // The file is there and bob's to read: the refusals above are about who asked.
      expect(await bob.bash('cat secret.txt')).toEqual({
        exitCode: 0,
        signal: null,
        stdout: 'bob-secret\n',
        stderr: '',
      });
    }, 20_000);
  });
});
