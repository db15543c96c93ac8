/**
 * write_file against a tenant who swaps its temp file: a watcher in the workspace renames each
 * `*.mango-tmp` away as soon as it appears and puts a symlink to a root-owned 0700 sentinel outside
 * every workspace in its place. However the race falls, the sentinel (a file, or a directory standing
 * for the sandbox state directory) keeps its mode, owner and bytes.
 */
import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createChat, expectOk } from '../../helpers/call-tool.ts';
import { describeFileWork, shareWithSandboxUser } from '../../helpers/chat-file-workers.ts';
import { expectHostSentinelKept, makeHostSentinel } from '../../helpers/host-sentinel.ts';
import { resetTenantTarget, startHostileTenant } from '../../helpers/hostile-tenant.ts';
import { makeTempDirectory } from '../../helpers/tool-context.ts';

const ITERATIONS = 300;
const TIME_LIMIT_MS = 10_000;
// Each attack runs up to its time limit, under whatever else the machine is doing.
setDefaultTimeout(TIME_LIMIT_MS + 30_000);
/** Large enough that writing it keeps the temp file open long enough for the watcher to act. */
const CONTENT = 'w'.repeat(256 * 1024);

describeFileWork('temp-file swaps', (fileWork) => {
  let temp: ReturnType<typeof makeTempDirectory>;
  let workspace: string;
  let outside: string;

  beforeEach(async () => {
    temp = makeTempDirectory('mango-temp-swap-');
    workspace = join(temp.path, 'ws');
    outside = join(temp.path, 'host');
    mkdirSync(workspace);
    mkdirSync(outside, { mode: 0o700 });
    await shareWithSandboxUser(workspace, fileWork);
  });
  afterEach(() => temp.remove());

  describe.each(['file', 'directory'] as const)(
    'write_file while the temp file is swapped for a link to a host %s',
    (kind) => {
      test('the sentinel keeps its mode, owner and bytes', async () => {
        const { sentinel, before } = makeHostSentinel(outside, kind);
        const chat = createChat({ workingDirectory: workspace, confined: true, fileWork });
        const target = join(workspace, 'target.txt');
        const tenant = await startHostileTenant('swap-temp', workspace, sentinel);
        let written = 0;
        let refused = 0;
        let rounds = 0;
        const unexpected: string[] = [];
        try {
          const started = Date.now();
          for (let round = 0; round < ITERATIONS && Date.now() - started < TIME_LIMIT_MS; round++) {
            rounds++;
            resetTenantTarget(target, round);
            expectOk(await chat.call('read_file', { path: 'target.txt' }));
            const outcome = await chat.call('write_file', { path: 'target.txt', content: CONTENT });
            if (outcome.ok) {
              written++;
              if ((outcome.result as { bytesWritten?: unknown }).bytesWritten !== CONTENT.length) {
                unexpected.push(JSON.stringify(outcome.result).slice(0, 200));
              }
            } else if (
              outcome.error.classification !== 'permission_denied' ||
              !outcome.error.message.includes('the path changed while the tool was using it')
            ) {
              unexpected.push(`${outcome.error.classification}: ${outcome.error.message}`);
            } else {
              refused++;
            }
          }
        } finally {
          await tenant.stop();
        }
        expectHostSentinelKept(sentinel, before, kind);
        // Every refusal was the path-changed one.
        expect(unexpected).toEqual([]);
        // Every round either wrote the whole file or refused; how the race fell varies with the machine's
        // load (a fast watcher can catch every round), so the split is not asserted.
        expect(written + refused).toBe(rounds);
        expect(rounds).toBeGreaterThan(0);
        // The refusals left the workspace usable: once the tenant stops, a write lands and reads back.
        resetTenantTarget(target, rounds);
        expectOk(await chat.call('read_file', { path: 'target.txt' }));
        const after = await chat.call('write_file', { path: 'target.txt', content: CONTENT });
        expectOk(after);
        expect(readFileSync(target, 'utf8')).toBe(CONTENT);
      });
    },
  );
});
