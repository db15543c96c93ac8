import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileWorkerPool } from '../src/file-worker/file-worker-pool.ts';
import { createWorkerFileOperations } from '../src/file-worker/worker-file-operations.ts';
import { createBubblewrapSandbox } from '../src/sandbox/bubblewrap-sandbox.ts';
import { inProcessFileOperations } from '../src/sandbox/host-file-operations.ts';
import { getAccessPolicy } from '../src/tools/access/access-policy.ts';
import { createWalkEntryFilter } from '../src/tools/access/walk-entry-filter.ts';
import { admittedGlobMatches } from '../src/tools/fs/glob-matches.ts';
import { scanGlob } from '../src/tools/fs/scan-glob.ts';
import { globReply } from '../src/file-worker/file-worker-replies.ts';
import { encodeGlobPaths } from '../src/file-worker/glob-paths-payload.ts';
import { userFileContext } from '../src/tools/user-file-context.ts';
import { testSandboxUsers } from '../tests/helpers/test-sandbox-users.ts';
import { benchReachable } from '../bench/support/bench-reachable.ts';
import { median } from '../bench/support/bench-helpers.ts';

const base = mkdtempSync('/var/tmp/globprof-');
chmodSync(base, 0o755);
const root = join(base, 'tree');
for (let i = 0; i < 50000; i++) {
  const d = join(root, `module_${Math.floor(i / 1000)}`, `part_${Math.floor(i / 100) % 10}`);
  if (i % 100 === 0) mkdirSync(d, { recursive: true });
  writeFileSync(join(d, `file_${i}.${i % 7 === 0 ? 'h' : 'c'}`), '');
}
const context = userFileContext('bench', benchReachable(base), Date.now);
const policy = await getAccessPolicy(context);
const sandbox = createBubblewrapSandbox({ log: () => {}, users: testSandboxUsers() });
const pool = createFileWorkerPool({ sandbox: () => sandbox, maxWorkers: 4, idleMs: 600_000, log: (l) => { if (l.includes('PROF')) console.log(l.slice(-60)); } });
const worker = createWorkerFileOperations(context, pool);
const here = inProcessFileOperations(context);
const pattern = process.argv[2] ?? '**';
const req = { pattern, cwd: root, dot: false, maxResults: Number.MAX_SAFE_INTEGER };
async function t(name: string, f: () => Promise<unknown> | unknown) {
  await f();
  const times: number[] = [];
  for (let i = 0; i < 7; i++) { const s = performance.now(); await f(); times.push(performance.now() - s); }
  console.log(name.padEnd(30), median(times).toFixed(1));
}
const outcome = await here.globFiles(req);
const payload = encodeGlobPaths(outcome.paths);
const header = { real: outcome.real, start: outcome.start, count: outcome.paths.length, truncated: false, refused: 0 };
await t('scanGlob', () => scanGlob({ pattern, root, dot: false, maxResults: Number.MAX_SAFE_INTEGER }));
await t('scanGlob+filter', () => { const filter = createWalkEntryFilter(policy); return scanGlob({ pattern, root, dot: false, maxResults: Number.MAX_SAFE_INTEGER, admits: (d, n, k) => filter.admitsEntry(d, n, k === 'link') }); });
await t('globFiles here', () => here.globFiles(req));
await t('encode', () => encodeGlobPaths(outcome.paths));
await t('globReply', () => globReply(header, payload, Number.MAX_SAFE_INTEGER));
await t('second wall', () => admittedGlobMatches(outcome, { pattern, shown: root, absolute: root }, policy));
await t('policy.admits x n', () => { for (const p of outcome.paths) policy.admits(p); });
await t('globFiles worker', () => worker.globFiles(req));
const proc = await pool.acquire('bench', context.reachable);
await t('raw worker call', () => proc.call('globFiles', { allowedPaths: [], deniedPaths: [] }, { ...req }));
await t('raw worker call literal', () => proc.call('globFiles', { allowedPaths: [], deniedPaths: [] }, { ...req, pattern: 'module_1' }));
await t('globFiles here', () => here.globFiles(req));
const d = new TextDecoder('utf-8', { fatal: true });
await t('decode', () => d.decode(payload));
await t('decode+split', () => d.decode(payload).split('\0'));
await t('set', () => new Set(outcome.paths));

pool.dispose(); sandbox.dispose(); rmSync(base, { recursive: true, force: true });
