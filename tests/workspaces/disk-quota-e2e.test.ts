/**
 * A user's disk quota, end to end: a real server as root on SQLite and PostgreSQL, the real bubblewrap
 * sandbox, each tenant's workspace an 8 MiB ext4 image. Alice's shell commands stop at the quota with
 * ENOSPC (`fallocate`, `dd`), and `df` in her shell shows the quota as the disk's size; her write_file
 * and her upload are refused as `quota_exceeded` with the used figure and the limit, leaving no file
 * behind; meanwhile bob's commands write, and the database takes writes. Once alice removes her files
 * (a failed `fallocate` keeps the blocks it got), her writes land again.
 */
// Runs alone (tests/run-suite.ts): it attaches loop devices, which files running beside it would race for.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, statfsSync } from 'node:fs';
import { formatBytes } from '../../src/config/byte-size.ts';
import { startTenantServer, type Tenant, type TenantServer } from '../helpers/tenant-server.ts';
import { BACKENDS } from '../helpers/test-database.ts';
import { describeDisks, MIB } from '../helpers/test-disks.ts';
import { describeSandbox } from '../sandbox/sandbox-host.ts';

const QUOTA = 8 * MIB;

function usedBytes(path: string): number {
  const stats = statfsSync(path);
  return (stats.blocks - stats.bfree) * stats.bsize;
}

describeSandbox('disk quotas of personal workspaces', () => {
  describeDisks('end to end', () => {
    describe.each(BACKENDS)('on %s', (backend) => {
      let tenants: TenantServer;
      let alice: Tenant;
      let bob: Tenant;

      beforeAll(async () => {
        tenants = await startTenantServer(backend, { userDiskBytes: QUOTA });
        alice = await tenants.addTenant('alice');
        bob = await tenants.addTenant('bob');
        const approved = await alice.api('PUT', '/api/settings/tools/write_file', {
          enabled: true,
          parameters: { approval: 'never' },
        });
        expect(approved.status).toBe(200);
      }, 60_000);
      afterAll(() => tenants?.stop(), 60_000);

      test("alice's shell sees the quota as the disk and stops at it with ENOSPC", async () => {
        expect(await alice.bash("df -B1 --output=size . | tail -n 1 | tr -d ' '")).toEqual({
          exitCode: 0,
          signal: null,
          stdout: `${QUOTA}\n`,
          stderr: '',
        });
        expect(await alice.bash('fallocate -l 20M big.bin')).toEqual({
          exitCode: 1,
          signal: null,
          stdout: '',
          stderr: 'fallocate: fallocate failed: No space left on device\n',
        });
        expect(await alice.bash('dd if=/dev/zero of=fill.bin bs=1M count=20 status=none')).toEqual({
          exitCode: 1,
          signal: null,
          stdout: '',
          stderr: "dd: error writing 'fill.bin': No space left on device\n",
        });
      }, 60_000);

      test('her write_file and her upload are refused with the used figure and the limit', async () => {
        const written = await alice.call('write_file', { path: 'notes.txt', content: 'n'.repeat(64 * 1024) });
        const used = formatBytes(usedBytes(alice.workspace));
        expect(written).toMatchObject({ ok: false });
        expect((written as { error?: unknown }).error).toEqual({
          classification: 'quota_exceeded',
          message: `The workspace is full: ${used} of 8 MiB used, and this write needs 64 KiB; remove files to make room. Nothing was written.`,
        });
        const uploaded = await alice.api(
          'POST',
          `/api/workspaces/${alice.workspaceId}/files?name=up.bin`,
          'u'.repeat(MIB),
        );
        expect(uploaded.status).toBe(507);
        expect(await uploaded.json()).toEqual({
          code: 'quota_exceeded',
          error: `The workspace is full: ${used} of 8 MiB used, and this write needs 1 MiB; remove files to make room. Nothing was written.`,
        });
        // Nothing of either write is left: no file, no temp file.
        expect(readdirSync(alice.workspace).sort()).toEqual(['big.bin', 'fill.bin']);
      }, 60_000);

      test('meanwhile bob writes in his workspace and the database takes writes', async () => {
        expect(await bob.bash('head -c 3145728 /dev/zero > ok.bin && stat -c %s ok.bin')).toEqual({
          exitCode: 0,
          signal: null,
          stdout: '3145728\n',
          stderr: '',
        });
        const created = await bob.api('POST', '/api/chats', { provider: 'openai-compatible', model: 'm' });
        expect(created.status).toBe(201);
        const carol = await tenants.server.deps.users.create('carol');
        expect(await tenants.server.deps.users.findByName('carol')).toMatchObject({ id: carol.user.id });
      }, 60_000);

      test('once alice removes her files, her writes land again', async () => {
        expect(await alice.bash('rm big.bin fill.bin && printf ok > small.txt && cat small.txt')).toEqual({
          exitCode: 0,
          signal: null,
          stdout: 'ok',
          stderr: '',
        });
        const written = await alice.call('write_file', { path: 'notes.txt', content: 'n'.repeat(64 * 1024) });
        expect(written).toMatchObject({
          ok: true,
          result: { path: 'notes.txt', bytesWritten: 65536, created: true },
        });
      }, 60_000);
    });
  });
});
