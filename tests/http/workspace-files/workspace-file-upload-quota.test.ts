/**
 * Uploads into a workspace with a disk quota, over the real app on both databases, each workspace a
 * real 8 MiB ext4 image: an upload the quota has no room for is `507 quota_exceeded` with the used
 * figure and the limit; replacing a file with one too large leaves the old file and no temp file;
 * another user's upload lands meanwhile, and so does a write to the database. Each runs with the file
 * work in the user's file worker (as the user's uid, where the kernel itself stops a write at the
 * quota) and in the server's own process.
 */
// Runs alone (tests/run-suite.ts): it attaches loop devices, which files running beside it would race for.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatBytes } from '../../../src/config/byte-size.ts';
import { createApp } from '../../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../../src/http/app-dependencies.ts';
import { workspaceId } from '../../../src/workspaces/workspace-id.ts';
import { releaseMountsUnder } from '../../helpers/release-mounts.ts';
import { FIXED_NOW } from '../../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';
import { describeDisks, MIB } from '../../helpers/test-disks.ts';
import {
  FILE_WORK,
  type InstalledTestFileWork,
  installTestFileWork,
} from '../../helpers/test-file-workers.ts';

describeDisks('uploads into a workspace with a disk quota', () => {
  const cases = BACKENDS.flatMap((backend) => FILE_WORK.map((fileWork) => [backend, fileWork] as const));
  describe.each(cases)('on %s, file work %s', (backend, fileWork) => {
    let handle: TestDatabase;
    let installed: InstalledTestFileWork;
    let deps: AppDependencies;
    let app: ReturnType<typeof createApp>;
    const tokens = { alice: '', bob: '' };
    const homes = { alice: '', bob: '' };

    beforeAll(async () => {
      handle = await createTestDatabase(backend);
      // Before the dependencies, as the server does: personal workspaces are made for the sandbox's uid.
      installed = installTestFileWork(handle.database, fileWork);
      deps = createAppDependencies({
        config: { ...handle.config, userDiskBytes: 8 * MIB },
        database: handle.database,
        now: () => FIXED_NOW,
        log: () => {},
        externalTools: null,
      });
      app = createApp(deps);
      for (const name of ['alice', 'bob'] as const) {
        const created = await deps.users.create(name);
        tokens[name] = created.token;
        homes[name] = await deps.workspaces.personalWorkspace(created.user.id);
      }
      writeFileSync(join(homes.alice, 'report.csv'), 'a,b\n1,2\n');
    });

    afterAll(async () => {
      installed.stop();
      await releaseMountsUnder(handle.config.workspacesDirectory);
      await releaseMountsUnder(handle.config.dataDirectory);
      await handle.dispose();
    });

    const upload = (name: 'alice' | 'bob', file: string, body: Uint8Array<ArrayBuffer>, overwrite = false) =>
      app.handle(
        new Request(
          `http://localhost/api/workspaces/${workspaceId(homes[name])}/files?name=${file}${overwrite ? '&overwrite=true' : ''}`,
          { method: 'POST', headers: { authorization: `Bearer ${tokens[name]}` }, body },
        ),
      );

    const usedOf = (path: string) => {
      const stats = statfsSync(path);
      return formatBytes((stats.blocks - stats.bfree) * stats.bsize);
    };

    test('an upload the quota has no room for is 507 quota_exceeded, and nothing is left of it', async () => {
      const response = await upload('alice', 'big.bin', new Uint8Array(10 * MIB));
      expect(response.status).toBe(507);
      expect(await response.json()).toEqual({
        code: 'quota_exceeded',
        error: `The workspace is full: ${usedOf(homes.alice)} of 8 MiB used, and this write needs 10 MiB; remove files to make room. Nothing was written.`,
      });
      expect(readdirSync(homes.alice)).toEqual(['report.csv']);
    });

    test('replacing a file with one too large leaves the old file', async () => {
      const response = await upload('alice', 'report.csv', new Uint8Array(10 * MIB), true);
      expect(response.status).toBe(507);
      expect(readFileSync(join(homes.alice, 'report.csv'), 'utf8')).toBe('a,b\n1,2\n');
      expect(readdirSync(homes.alice)).toEqual(['report.csv']);
    });

    test("bob's upload and a database write land meanwhile", async () => {
      const response = await upload('bob', 'fits.bin', new Uint8Array(2 * MIB));
      expect(response.status).toBe(201);
      expect(await response.json()).toEqual({
        workspace: workspaceId(homes.bob),
        path: 'fits.bin',
        size: 2 * MIB,
        replaced: false,
      });
      const carol = await deps.users.create('carol');
      expect((await deps.users.findByName('carol'))?.id).toBe(carol.user.id);
    });
  });
});
