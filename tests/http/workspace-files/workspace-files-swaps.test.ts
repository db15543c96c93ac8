/**
 * The files routes under the swap fuzzer (tests/helpers/swap-fuzzer.ts): while the tenant exchanges the
 * folders and files of its personal workspace with symlinks to a root-owned sentinel tree outside every
 * workspace (entries mode 0700, a mode-04755 file in each directory), uploads (new files, and
 * overwrite=true of an existing one), downloads and folder listings return nothing of the sentinel and
 * leave it identical in bytes, modes and owners. A request may be refused while the swap runs, as a
 * changed path (403) or a path now outside the workspace (422), never otherwise; a new file uploaded is
 * found in the workspace afterwards, with its own bytes. It runs with the file work in the tenant's
 * file worker (as the tenant's uid) and in the server's own process.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { handToSandboxUser } from '../../../src/sandbox/sandbox-file-owner.ts';
import { workspaceId } from '../../../src/workspaces/workspace-id.ts';
import {
  createSentinelTree,
  expectSentinelHeld,
  fuzzSwaps,
  type SentinelTree,
} from '../../helpers/swap-fuzzer.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { FILE_WORK } from '../../helpers/test-file-workers.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

/** Each route runs this many times (at least 300) or for SECONDS, whichever ends first. */
const ITERATIONS = 1000;
const SECONDS = 6;

describe.each(FILE_WORK)('the files routes under swaps, file work %s', (fileWork) => {
  let api: TestApp;
  let token = '';
  let home = '';
  let files = '';
  let sentinel: SentinelTree;
  let host: ReturnType<typeof makeTempDirectory>;

  beforeAll(async () => {
    host = makeTempDirectory('mango-files-swaps-');
    api = await createTestApp('sqlite', undefined, { fileWork });
    const created = await api.deps.users.create('tenant');
    token = created.token;
    home = await api.deps.workspaces.personalWorkspace(created.user.id);
    files = `http://localhost/api/workspaces/${workspaceId(home)}/files`;
    mkdirSync(join(home, 'inner', 'deep'), { recursive: true });
    writeFileSync(join(home, 'inner', 'b.txt'), 'needle b\n');
    writeFileSync(join(home, 'inner', 'deep', 'c.txt'), 'needle c\n');
    // Made here by root: the tenant's own, as what it makes itself would be (a no-op in process).
    for (const entry of ['inner', 'inner/deep', 'inner/b.txt', 'inner/deep/c.txt'])
      await handToSandboxUser(join(home, entry), created.user.id);
    sentinel = createSentinelTree(join(host.path, 'sentinel'), home, { privileged: true });
  });
  afterAll(async () => {
    host.remove();
    await api.dispose();
  });

  interface Answer {
    ok: boolean;
    status: number;
    body: string;
  }

  async function send(url: string, init: RequestInit = {}): Promise<Answer> {
    const response = await api.app.handle(
      new Request(url, { ...init, headers: { authorization: `Bearer ${token}` } }),
    );
    // 201 is a new upload, 200 any other success.
    const ok = response.status === 200 || response.status === 201;
    return { ok, status: response.status, body: await response.text() };
  }

  /** What uploads must have left in the workspace: relative path and its exact bytes, or their pattern. */
  type Uploaded = Map<string, string | RegExp>;

  const routes: [string, string[], (iteration: number, uploaded: Uploaded) => Promise<Answer>][] = [
    [
      'an upload of a new file',
      ['inner', 'inner/deep'],
      async (i, uploaded) => {
        const answer = await send(`${files}?path=inner/deep&name=new-${i}.txt`, {
          method: 'POST',
          body: `uploaded ${i}\n`,
        });
        if (answer.ok) uploaded.set(`inner/deep/new-${i}.txt`, `uploaded ${i}\n`);
        return answer;
      },
    ],
    [
      'an upload with overwrite=true',
      ['inner', 'inner/deep', 'inner/deep/c.txt'],
      async (i, uploaded) => {
        const answer = await send(`${files}?path=inner/deep&name=c.txt&overwrite=true`, {
          method: 'POST',
          body: `needle c ${i}\n`,
        });
        // The tenant's exchanges move the file itself around too: an upload renamed over the name while
        // the tenant's link stood there is swapped away again afterwards, so the file holds the bytes of
        // some upload (or its first ones), not necessarily the last, and never anything else.
        uploaded.set('inner/deep/c.txt', /^needle c( \d+)?\n$/);
        return answer;
      },
    ],
    [
      'a download',
      ['inner', 'inner/b.txt', 'inner/deep', 'inner/deep/c.txt'],
      (i) => send(`${files}/content?path=${['inner/b.txt', 'inner/deep/c.txt'][i % 2]}`),
    ],
    [
      'a folder listing',
      ['inner', 'inner/b.txt', 'inner/deep', 'inner/deep/c.txt'],
      (i) => send(`${files}?path=${['inner', 'inner/deep', ''][i % 3]}`),
    ],
  ];

  test.each(routes)(
    '%s returns nothing of the sentinel and leaves it untouched',
    async (name, components, route) => {
      const uploaded: Uploaded = new Map();
      const statuses = new Map<number, number>();
      const report = await fuzzSwaps({
        workspace: home,
        componentsToSwap: components,
        sentinel,
        operation: async (iteration) => {
          const answer = await route(iteration, uploaded);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          return answer;
        },
        iterations: ITERATIONS,
        seconds: SECONDS,
      });
      expectSentinelHeld(report, { iterations: ITERATIONS, seconds: SECONDS, privileged: sentinel });
      // Refused as a path that changed (403) or now lies outside the workspace (422), nothing else.
      expect([...statuses.keys()].filter((status) => ![200, 201, 403, 422].includes(status))).toEqual([]);
      // Every new upload is where it was sent, with its bytes; the replaced file holds an upload's bytes.
      for (const [path, bytes] of uploaded) {
        const found = readFileSync(join(home, path), 'utf8');
        if (typeof bytes === 'string') expect(found).toBe(bytes);
        else expect(found).toMatch(bytes);
      }
      console.log(
        `${name}: ${report.iterations} requests (${report.failures} refused; statuses ${JSON.stringify(Object.fromEntries(statuses))}) in ${report.elapsedSeconds.toFixed(1)} s, ${report.swaps} swaps (${Math.round(report.swaps / report.elapsedSeconds)}/s)`,
      );
    },
    SECONDS * 1000 + 8000,
  );
});
