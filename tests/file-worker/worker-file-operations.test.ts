/**
 * The file tools through file workers in real bubblewrap sandboxes: read_file, write_file, edit_file
 * and list_directory do their work in alice's worker, as alice's uid; a worker sees only its reachable
 * set (not bob's workspace, not the installation beyond its runtime and code); a reply that breaks the
 * protocol stops the worker; a crashed worker fails its call clearly and is replaced; an idle one ends.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileWorkerProgram } from '../../src/file-worker/file-worker-bundle.ts';
import { type FileWorkerPool, failedAtProcessLimit } from '../../src/file-worker/file-worker-pool.ts';
import { FileWorkerProcess } from '../../src/file-worker/file-worker-process.ts';
import { MAX_CALL_PAYLOAD_BYTES, MAX_PAYLOAD_BYTES } from '../../src/file-worker/file-worker-protocol.ts';
import { createWorkerFileOperations } from '../../src/file-worker/worker-file-operations.ts';
import { FILE_WORKER_DIRECTORY } from '../../src/sandbox/file-worker-sandbox.ts';
import { resolveAndValidatePath } from '../../src/tools/access/resolve-and-validate-path.ts';
import { ToolError } from '../../src/tools/errors.ts';
import { sha256Hex } from '../../src/tools/fs/freshness.ts';
import { userFileContext } from '../../src/tools/user-file-context.ts';
import { installationDirectory } from '../../src/workspaces/installation-directory.ts';
import { expectFailure, expectOk } from '../helpers/call-tool.ts';
import { manualClock } from '../helpers/manual-clock.ts';
import { makeReachableSet } from '../helpers/tool-context.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { describeSandbox, useTestSandbox } from '../sandbox/sandbox-host.ts';
import { descendantsOf } from './file-worker-server-process.ts';
import { useFileWorkers, workerChat } from './file-worker-test-host.ts';

/** The worker's own Bun process inside the sandbox of `worker`. */
function bunOf(worker: FileWorkerProcess): number {
  const pid = descendantsOf(worker.pid).find((candidate) => {
    try {
      // The launcher (PID 1) names the program too; Bun's own command line starts with the runtime.
      return readFileSync(`/proc/${candidate}/cmdline`, 'utf8').startsWith(`${FILE_WORKER_DIRECTORY}/bun\0`);
    } catch {
      return false;
    }
  });
  if (pid === undefined) throw new Error('the worker has no Bun process');
  return pid;
}

describeSandbox('file tools through the worker', () => {
  const host = useTestSandbox();
  const workers = useFileWorkers(() => host.sandbox);

  test("read, create, edit, overwrite and list alice's files, as her uid, in one worker", async () => {
    const { alice } = host.layout;
    writeFileSync(join(alice, 'notes.txt'), 'one\ntwo\n');
    const chat = workerChat('alice', () => host.layout.reachable);
    expect(expectOk(await chat.call('read_file', { path: 'notes.txt' }))).toEqual({
      content: '     1\tone\n     2\ttwo',
      path: 'notes.txt',
      size: 8,
      sha256: sha256Hex('one\ntwo\n'),
      totalLines: 2,
      startLine: 1,
      endLine: 2,
      truncated: false,
    });
    expect(expectOk(await chat.call('write_file', { path: 'made/new.txt', content: 'fresh\n' }))).toEqual({
      path: 'made/new.txt',
      bytesWritten: 6,
      created: true,
      sha256: sha256Hex('fresh\n'),
    });
    const identity = await host.sandbox.identityFor('alice', [alice]);
    const made = statSync(join(alice, 'made', 'new.txt'));
    expect([made.uid, made.gid]).toEqual([identity.uid, identity.gid]);
    expect(statSync(join(alice, 'made')).uid).toBe(identity.uid);
    expect(
      expectOk(await chat.call('edit_file', { path: 'notes.txt', oldString: 'two', newString: 'deux' })),
    ).toEqual({ path: 'notes.txt', replacements: 1, sha256: sha256Hex('one\ndeux\n'), firstChangedLine: 2 });
    expect(readFileSync(join(alice, 'notes.txt'), 'utf8')).toBe('one\ndeux\n');
    // The edit recorded the new content: an overwrite needs no read in between.
    expect(expectOk(await chat.call('write_file', { path: 'notes.txt', content: 'trois\n' }))).toMatchObject({
      created: false,
    });
    expect(expectOk(await chat.call('list_directory', { path: '.' }))).toEqual({
      path: '.',
      entries: [
        { name: 'made', type: 'directory' },
        { name: 'notes.txt', type: 'file' },
      ],
    });
    expect([...workers.pool.workers().values()].length).toBe(1);
  });

  test("the policy still decides: an unread overwrite, bob's diary, a read-only grant and a denied path are refused", async () => {
    const { alice, bob, projects } = host.layout;
    writeFileSync(join(alice, 'unread.txt'), 'old\n');
    const chat = workerChat('alice', () => host.layout.reachable, {
      deniedPaths: [{ path: '~/secret', enabled: true }],
    });
    expect(
      expectFailure(await chat.call('write_file', { path: 'unread.txt', content: 'x' })).classification,
    ).toBe('execution_error');
    expect(readFileSync(join(alice, 'unread.txt'), 'utf8')).toBe('old\n');
    expect(expectFailure(await chat.call('read_file', { path: join(bob, 'diary.txt') }))).toMatchObject({
      classification: 'permission_denied',
    });
    expect(
      expectFailure(await chat.call('write_file', { path: join(projects, 'readme.txt'), content: 'x' })),
    ).toEqual({
      classification: 'permission_denied',
      message: `Cannot write "${join(projects, 'readme.txt')}": it lies in ${projects}, which this chat may only read (read-only).`,
    });
    expect(
      expectFailure(await chat.call('write_file', { path: '~/secret/a.txt', content: 'x' })),
    ).toMatchObject({
      classification: 'permission_denied',
    });
    expect(readFileSync(join(projects, 'readme.txt'), 'utf8')).toBe('shared project readme\n');
  });

  test("the server's own path resolution asks alice's worker: her links, and a directory only root may enter", async () => {
    const { alice } = host.layout;
    mkdirSync(join(alice, 'drafts'));
    symlinkSync('drafts', join(alice, 'via'));
    symlinkSync('loop', join(alice, 'loop'));
    // Root may enter it, alice's uid may not: only a resolution done as alice is refused.
    mkdirSync(join(alice, 'rootonly'), { mode: 0o700 });
    const context = userFileContext('alice', host.layout.reachable, Date.now);
    expect(await resolveAndValidatePath('via/new.txt', context)).toEqual({
      input: 'via/new.txt',
      absolute: join(alice, 'via', 'new.txt'),
      real: join(alice, 'drafts', 'new.txt'),
      exists: false,
    });
    await expect(resolveAndValidatePath('loop', context)).rejects.toThrow(
      'Cannot resolve path "loop": it runs into a symlink loop.',
    );
    await expect(resolveAndValidatePath('rootonly/inner/file.txt', context)).rejects.toThrow(
      'Cannot resolve path "rootonly/inner/file.txt": the operating system denied access to a directory on the way (EACCES).',
    );
  });

  test('another user and another reachable set get workers of their own', async () => {
    const { projects } = host.layout;
    const before = new Set(workers.pool.workers().keys());
    const narrow = {
      ...host.layout.reachable,
      roots: host.layout.reachable.roots.filter((root) => root.path === projects),
      workingDirectory: projects,
    };
    expectOk(await workerChat('alice', () => narrow).call('read_file', { path: 'readme.txt' }));
    const after = [...workers.pool.workers().keys()].filter((key) => !before.has(key));
    expect(after.length).toBe(1);
    expect(JSON.parse(after[0] as string)[0]).toBe('alice');
  });

  test("a worker sees only its mounts: not bob's workspace, not the installation beyond its runtime and code", async () => {
    const { bob, data, elsewhere } = host.layout;
    const launch = await host.sandbox.prepareFileWorker!({
      userId: 'alice',
      reachable: host.layout.reachable,
      ...(await fileWorkerProgram()),
    });
    // Told it may reach everything, so only the sandbox's mounts stand between it and the host.
    const everything = {
      ...host.layout.reachable,
      roots: [{ path: '/', access: 'read-only' as const }],
      protectedPaths: [],
    };
    const worker = await FileWorkerProcess.start({
      launch,
      userId: 'alice',
      reachable: everything,
      log: () => {},
    });
    try {
      const read = (path: string) =>
        worker.call('readFile', {}, { path, need: 'read', ceiling: 1024, action: 'read' }).then(
          (reply) => ({ ok: true, result: reply.result, bytes: new TextDecoder().decode(reply.payload) }),
          (error: { classification: string }) => ({ ok: false, classification: error.classification }),
        );
      // Not refused: not there at all.
      expect(await read(join(bob, 'diary.txt'))).toEqual({ ok: false, classification: 'not_found' });
      expect(await read(join(elsewhere, 'planted.txt'))).toEqual({ ok: false, classification: 'not_found' });
      expect(await read(join(installationDirectory(), 'package.json'))).toEqual({
        ok: false,
        classification: 'not_found',
      });
      // The data directory inside the read-only grant is covered: there, but empty and unreadable.
      expect((await read(join(data, 'mango.db'))).ok).toBe(false);
      const listing = await worker.call('listDirectory', {}, { path: FILE_WORKER_DIRECTORY });
      expect((listing.result as { entries: unknown }).entries).toEqual([
        { name: 'bun', type: 'file' },
        { name: 'file-worker.js', type: 'file' },
        { name: 'glob-thread.js', type: 'file' },
        { name: 'grep-worker.js', type: 'file' },
      ]);
      const environment = readFileSync(`/proc/${bunOf(worker)}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean);
      expect(environment.sort()).toEqual([
        // bubblewrap's own, for the working directory it enters inside.
        'BUN_RUNTIME_TRANSPILER_CACHE_PATH=0',
        'HOME=/home/sandbox',
        'LANG=C.UTF-8',
        `PWD=${host.layout.alice}`,
      ]);
      const identity = await host.sandbox.identityFor(
        'alice',
        host.layout.reachable.roots.map((root) => root.path),
      );
      expect(statSync(`/proc/${bunOf(worker)}`).uid).toBe(identity.uid);
    } finally {
      worker.stop();
      await worker.exited;
    }
  });

  test('an upload larger than one frame crosses in parts and is written whole, as her uid', async () => {
    const { alice } = host.layout;
    const operations = createWorkerFileOperations(
      userFileContext('alice', host.layout.reachable, Date.now),
      workers.pool,
    );
    // Two parts: a whole frame and a few bytes more, each byte telling its offset apart.
    const data = new Uint8Array(MAX_PAYLOAD_BYTES + 4099);
    for (let index = 0; index < data.length; index += 1) data[index] = (index * 7 + (index >> 16)) & 0xff;
    expect(
      await operations.uploadFile({
        directory: '.',
        name: 'big.bin',
        overwrite: false,
        data,
        shown: 'big.bin',
      }),
    ).toEqual({ kind: 'written', real: join(alice, 'big.bin'), size: data.length, replaced: false });
    const written = readFileSync(join(alice, 'big.bin'));
    expect(written.length).toBe(data.length);
    expect(sha256Hex(written)).toBe(sha256Hex(data));
    const identity = await host.sandbox.identityFor('alice', [alice]);
    expect(statSync(join(alice, 'big.bin')).uid).toBe(identity.uid);
    // The worker goes on serving calls after it.
    expect(
      expectOk(await workerChat('alice', () => host.layout.reachable).call('list_directory', { path: '.' })),
    ).toBeDefined();
  });

  test('a worker that crashes mid-call fails that call clearly, and the next call gets a new worker', async () => {
    const { alice } = host.layout;
    writeFileSync(join(alice, 'crash.txt'), 'still here\n');
    const chat = workerChat('alice', () => host.layout.reachable);
    expectOk(await chat.call('read_file', { path: 'crash.txt' }));
    const worker = await workers.pool.acquire('alice', host.layout.reachable);
    const bun = bunOf(worker);
    // Held still, it cannot answer; then killed with the call in flight.
    process.kill(bun, 'SIGSTOP');
    const pending = chat.call('read_file', { path: 'crash.txt' });
    expect(await waitUntil(() => worker.busy === 1, 5000)).toBe(true);
    process.kill(bun, 'SIGKILL');
    const failure = expectFailure(await pending);
    expect(failure.classification).toBe('execution_error');
    expect(failure.message).toStartWith('The file worker of this call ended (exit status ');
    expect(failure.message).toContain(
      'before it answered, so the file work did not complete; the next call starts a new worker.',
    );
    expect(worker.alive).toBe(false);
    expect(expectOk(await chat.call('read_file', { path: 'crash.txt' })).content).toBe('     1\tstill here');
    const replacement = await workers.pool.acquire('alice', host.layout.reachable);
    expect(replacement).not.toBe(worker);
    expect(replacement.pid).not.toBe(worker.pid);
  });
});

describeSandbox('a worker that breaks the protocol', () => {
  const host = useTestSandbox();
  const workers = useFileWorkers(() => host.sandbox);

  test('a reply of the wrong shape stops the worker and fails the call; nothing of it is used', async () => {
    const { alice } = host.layout;
    writeFileSync(join(alice, 'a.txt'), 'a\n');
    const chat = workerChat('alice', () => host.layout.reachable);
    expectOk(await chat.call('read_file', { path: 'a.txt' }));
    const worker = await workers.pool.acquire('alice', host.layout.reachable);
    // The reply judged as the worker's own: a result naming a path that is not one.
    const original = worker.call.bind(worker);
    worker.call = async (...args) => ({
      ...(await original(...args)),
      result: { kind: 'file', real: 'relative/a.txt', mode: 420, mtimeMs: 1 },
    });
    const failure = expectFailure(await chat.call('read_file', { path: 'a.txt' }));
    expect(failure).toEqual({
      classification: 'execution_error',
      message:
        'The file worker of this call sent a reply that is not valid (real is not an absolute, normalised path); it was stopped, and nothing of the reply was used.',
    });
    await worker.exited;
    expect(worker.alive).toBe(false);
  });
});

describeSandbox('idle workers', () => {
  const host = useTestSandbox();
  const clock = manualClock();
  const workers = useFileWorkers(() => host.sandbox, { idleMs: 30_000, now: clock.now });

  test("a worker without a call for idleMs on the pool's clock is stopped; the next call starts another", async () => {
    writeFileSync(join(host.layout.alice, 'idle.txt'), 'z\n');
    const chat = workerChat('alice', () => host.layout.reachable);
    expectOk(await chat.call('read_file', { path: 'idle.txt' }));
    const worker = [...workers.pool.workers().values()][0] as FileWorkerProcess;
    await clock.advance(29_999);
    workers.pool.sweep();
    expect(worker.alive).toBe(true);
    await clock.advance(1);
    workers.pool.sweep();
    await worker.exited;
    expect(workers.pool.workers().size).toBe(0);
    expectOk(await chat.call('read_file', { path: 'idle.txt' }));
    expect(workers.pool.workers().size).toBe(1);
  });
});

describe('a worker that cannot run while its user is at the process limit', () => {
  /** A watch on alice's process limit: at it, or not. */
  const limitOf = (atLimit: boolean) => () =>
    atLimit ? "The file work of this call could not run: alice's processes are at their limit." : undefined;
  const crashed = new ToolError(
    'execution_error',
    'The file worker for this call could not start: exit status 134.',
  );

  test('at the limit: the call says so in the sandbox’s words, not the worker’s crash', () => {
    expect(failedAtProcessLimit(limitOf(true), crashed)).toMatchObject({
      classification: 'execution_error',
      message: "The file work of this call could not run: alice's processes are at their limit.",
    });
  });
  test('below it: the worker’s own failure, as it was', () => {
    expect(failedAtProcessLimit(limitOf(false), crashed)).toBe(crashed);
  });
  test('at the limit, a refusal that is no failure to run stays itself', () => {
    const refused = new ToolError('permission_denied', 'Access to "a.txt" is denied.');
    expect(failedAtProcessLimit(limitOf(true), refused)).toBe(refused);
  });
});

describe("the files routes' operations through a worker", () => {
  test('an upload larger than one call may carry is refused before any worker is asked', async () => {
    const asked: string[] = [];
    const pool: FileWorkerPool = {
      acquire: async (userId) => {
        asked.push(userId);
        throw new Error('no worker may be asked');
      },
      touch: () => {},
      sweep: () => {},
      workers: () => new Map(),
      explainFailure: (_worker, error) => error,
      dispose: () => {},
    };
    const reachable = makeReachableSet();
    const operations = createWorkerFileOperations(userFileContext('alice', reachable, Date.now), pool);
    // Only its length is read before the refusal: no 4 GiB are made for it.
    const data = Object.defineProperty(new Uint8Array(0), 'length', { value: MAX_CALL_PAYLOAD_BYTES + 1 });
    await expect(
      operations.uploadFile({ directory: '.', name: 'big.bin', overwrite: false, data, shown: 'big.bin' }),
    ).rejects.toMatchObject({
      classification: 'validation_failed',
      message: `Cannot upload "big.bin": it is ${MAX_CALL_PAYLOAD_BYTES + 1} bytes, and a file worker takes at most ${MAX_CALL_PAYLOAD_BYTES} bytes in one upload (MANGO_MAX_UPLOAD_BYTES may not be set above it while file workers are on).`,
    });
    expect(asked).toEqual([]);
  });
});
