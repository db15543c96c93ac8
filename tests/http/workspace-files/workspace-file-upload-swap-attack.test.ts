/**
 * Uploads with overwrite=true against a tenant who swaps the upload's temp file: a watcher in the
 * workspace renames each `*.mango-tmp` away as soon as it appears and puts a symlink to a root-owned
 * 0700 sentinel outside every workspace in its place (a host file, or a directory standing for the
 * sandbox state directory). However the race falls, the sentinel keeps its mode, owner and bytes, and
 * no answer reports any size but the upload's own. It runs with the file work in the tenant's file
 * worker (as the tenant's uid) and in the server's own process.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { chmodSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceId } from '../../../src/workspaces/workspace-id.ts';
import { expectHostSentinelKept, makeHostSentinel } from '../../helpers/host-sentinel.ts';
import { resetTenantTarget, startHostileTenant } from '../../helpers/hostile-tenant.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { FILE_WORK } from '../../helpers/test-file-workers.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

const ITERATIONS = 300;
const TIME_LIMIT_MS = 10_000;
// Each attack runs up to its time limit, under whatever else the machine is doing.
setDefaultTimeout(TIME_LIMIT_MS + 30_000);
/** Large enough that writing it keeps the temp file open long enough for the watcher to act. */
const BODY = new Uint8Array(256 * 1024).fill(0x77);

describe.each(FILE_WORK)('uploads against a tenant swapping temp files, file work %s', (fileWork) => {
  let api: TestApp;
  let token = '';
  let home = '';
  let host: ReturnType<typeof makeTempDirectory>;

  beforeAll(async () => {
    api = await createTestApp('sqlite', undefined, { fileWork });
    const created = await api.deps.users.create('tenant');
    token = created.token;
    home = await api.deps.workspaces.personalWorkspace(created.user.id);
    host = makeTempDirectory('mango-upload-swap-host-');
    chmodSync(host.path, 0o700);
  });
  afterAll(async () => {
    host.remove();
    await api.dispose();
  });

  describe.each(['file', 'directory'] as const)(
    'uploads while the temp file is swapped for a link to a host %s',
    (kind) => {
      test('the sentinel keeps its mode, owner and bytes, and no answer reports its size', async () => {
        const { sentinel, before } = makeHostSentinel(host.path, kind);
        const target = join(home, 'upload.bin');
        const tenant = await startHostileTenant('swap-temp', home, sentinel);
        const statuses = new Set<number>();
        const sizes = new Set<number>();
        try {
          const started = Date.now();
          for (let round = 0; round < ITERATIONS && Date.now() - started < TIME_LIMIT_MS; round++) {
            // The tenant's own file again, mode 6777, whatever the last round left at the name.
            resetTenantTarget(target, round);
            const response = await api.app.handle(
              new Request(
                `http://localhost/api/workspaces/${workspaceId(home)}/files?name=upload.bin&overwrite=true`,
                {
                  method: 'POST',
                  headers: { authorization: `Bearer ${token}` },
                  body: BODY,
                },
              ),
            );
            statuses.add(response.status);
            const answer = (await response.json()) as { size?: number };
            if (answer.size !== undefined) sizes.add(answer.size);
          }
        } finally {
          await tenant.stop();
        }
        expectHostSentinelKept(sentinel, before, kind);
        expect([...sizes]).toEqual([BODY.length]);
        // Uploads landed between swaps; the others were refused as a changed path (403), nothing else.
        expect([...statuses].filter((status) => status !== 200 && status !== 403)).toEqual([]);
        expect(statuses.has(200)).toBe(true);
      });
    },
  );
});
