/**
 * The workspace files routes over the real app, real files and both databases: listing (folders first),
 * download (attachment, nosniff, exact bytes), upload (atomic, no silent overwrite, size cap, names),
 * and isolation — alice cannot list, download or upload into bob's workspace, the data directory or the
 * installation directory; a symlink out, an unknown id and `..` get the one fixed 422; a FIFO is
 * refused without blocking; a read-only workspace takes no upload. Each runs with the file work in
 * the user's file worker (as the user's uid, in their sandbox) and in the server's own process.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createApp } from '../../../src/http/app.ts';
import { createAppDependencies } from '../../../src/http/app-dependencies.ts';
import { handToSandboxUser } from '../../../src/sandbox/sandbox-file-owner.ts';
import { sha256Hex } from '../../../src/tools/fs/freshness.ts';
import { installationDirectory } from '../../../src/workspaces/installation-directory.ts';
import { workspaceId } from '../../../src/workspaces/workspace-id.ts';
import { createTestApp, FIXED_NOW, type TestApp } from '../../helpers/test-app.ts';
import { BACKENDS } from '../../helpers/test-database.ts';
import { FILE_WORK } from '../../helpers/test-file-workers.ts';

const OUTSIDE_BODY =
  '{"error":"The working directory is not inside any of your workspaces (GET /api/workspaces lists them).","code":"invalid_working_directory"}';

const CASES = BACKENDS.flatMap((backend) => FILE_WORK.map((fileWork) => [backend, fileWork] as const));

describe.each(CASES)('workspace files routes on %s, file work %s', (backend, fileWork) => {
  let api: TestApp;
  const tokens = { alice: '', bob: '' };
  const homes = { alice: '', bob: '' };
  let aliceId = '';
  let bobId = '';
  let shared = '';
  let sharedId = '';

  const send = (token: string, method: string, path: string, body?: BodyInit, headers = {}) =>
    api.app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...headers },
        body,
      }),
    );
  const files = (id: string, query = '') => `/api/workspaces/${id}/files${query}`;

  beforeAll(async () => {
    api = await createTestApp(backend, undefined, { fileWork });
    for (const name of ['alice', 'bob'] as const) {
      const created = await api.deps.users.create(name);
      tokens[name] = created.token;
      homes[name] = await api.deps.workspaces.personalWorkspace(created.user.id);
    }
    aliceId = workspaceId(homes.alice);
    bobId = workspaceId(homes.bob);
    mkdirSync(join(homes.alice, 'src', 'deep'), { recursive: true });
    mkdirSync(join(homes.alice, 'Zeta'));
    const alice = await api.deps.users.findByName('alice');
    // Made here by root: given to alice's uid, as what she makes herself would be (a no-op in process).
    for (const directory of ['src', 'src/deep', 'Zeta'])
      await handToSandboxUser(join(homes.alice, directory), alice!.id);
    writeFileSync(join(homes.alice, 'a.txt'), 'alpha\n');
    writeFileSync(join(homes.alice, 'src', 'main.ts'), 'export {};\n');
    writeFileSync(join(homes.bob, 'secret.txt'), 'bob-secret\n');
    symlinkSync(join(homes.bob, 'secret.txt'), join(homes.alice, 'to-bob'));
    symlinkSync(homes.bob, join(homes.alice, 'bob-dir'));
    symlinkSync(join(homes.alice, 'a.txt'), join(homes.alice, 'inside-link'));
    execFileSync('mkfifo', [join(homes.alice, 'pipe')]);
    shared = realpathSync(mkdtempSync(join(tmpdir(), 'mango-files-shared-')));
    // Readable by alice's uid, as a grant must be for her commands (mkdtemp makes it 0700).
    chmodSync(shared, 0o755);
    writeFileSync(join(shared, 'readme.md'), '# shared\n');
    await api.deps.workspaces.grant(alice!.id, shared, true);
    sharedId = workspaceId(shared);
  });

  afterAll(async () => {
    rmSync(shared, { recursive: true, force: true });
    await api.dispose();
  });

  test('GET /api/workspaces gives each workspace its opaque id', async () => {
    const response = await api.request('GET', '/api/workspaces', { token: tokens.alice });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      workspaces: [
        { id: aliceId, name: 'My workspace', path: homes.alice, access: 'read-write', kind: 'personal' },
        // A grant is called by its folder's name, never by the server's path of the personal one.
        { id: sharedId, name: basename(shared), path: shared, access: 'read-only', kind: 'granted' },
      ],
      allowUnrestricted: false,
    });
    expect(aliceId).toMatch(/^ws_[0-9a-f]{20}$/);
  });

  test('lists folders first, then files by name; links out are left out and counted', async () => {
    const response = await api.request('GET', files(aliceId), { token: tokens.alice });
    expect(response.status).toBe(200);
    const listing = response.json as { entries: { name: string; type: string; size?: number }[] };
    expect(listing).toMatchObject({ workspace: aliceId, path: '', omitted: 2, truncated: false });
    expect(listing.entries.map((entry) => [entry.name, entry.type, entry.size])).toEqual([
      ['Zeta', 'directory', undefined],
      ['src', 'directory', undefined],
      ['a.txt', 'file', 6],
      ['inside-link', 'symlink', undefined],
      ['pipe', 'other', undefined],
    ]);
    const nested = await api.request('GET', files(aliceId, '?path=src'), { token: tokens.alice });
    expect(nested.status).toBe(200);
    expect(nested.json).toMatchObject({
      path: 'src',
      entries: [
        { name: 'deep', type: 'directory' },
        { name: 'main.ts', type: 'file', size: 11 },
      ],
    });
  });

  test('downloads a file as an attachment with its exact bytes, never inline', async () => {
    const response = await send(tokens.alice, 'GET', files(aliceId, '/content?path=src/main.ts'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="main.ts"; filename*=UTF-8''main.ts`,
    );
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await response.text()).toBe('export {};\n');
    const viaLink = await send(tokens.alice, 'GET', files(aliceId, '/content?path=inside-link'));
    expect(viaLink.status).toBe(200);
    expect(await viaLink.text()).toBe('alpha\n');
  });

  test('an image by its bytes gets its image type (for the preview); SVG and a renamed text do not', async () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    const webp = new TextEncoder().encode('RIFF\u0000\u0000\u0000\u0000WEBPVP8 ');
    const cases: [string, Uint8Array | string, string][] = [
      ['shot.bin', png, 'image/png'],
      ['photo.jpg', Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]), 'image/jpeg'],
      ['anim.gif', 'GIF89a', 'image/gif'],
      ['pic.webp', webp, 'image/webp'],
      [
        'drawing.svg',
        '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
        'application/octet-stream',
      ],
      ['fake.png', 'not an image', 'application/octet-stream'],
      ['empty.png', '', 'application/octet-stream'],
    ];
    for (const [name, bytes] of cases) writeFileSync(join(homes.alice, name), bytes);
    try {
      for (const [name, bytes, type] of cases) {
        const response = await send(tokens.alice, 'GET', files(aliceId, `/content?path=${name}`));
        expect([name, response.status, response.headers.get('content-type')]).toEqual([name, 200, type]);
        // Whatever its type, it stays an attachment that the browser never renders as a page.
        expect(response.headers.get('content-disposition')).toStartWith('attachment; ');
        expect(response.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
        expect([...new Uint8Array(await response.arrayBuffer())]).toEqual([
          ...(typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes),
        ]);
      }
    } finally {
      for (const [name] of cases) rmSync(join(homes.alice, name));
    }
  });

  test('a file larger than one range streams whole, in order', async () => {
    const bytes = new Uint8Array(2.5 * 1024 * 1024);
    for (let index = 0; index < bytes.length; index++) bytes[index] = (index * 31 + (index >> 12)) & 0xff;
    writeFileSync(join(homes.alice, 'big.bin'), bytes);
    try {
      const response = await send(tokens.alice, 'GET', files(aliceId, '/content?path=big.bin'));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-length')).toBe(String(bytes.length));
      const received = new Uint8Array(await response.arrayBuffer());
      expect([received.length, sha256Hex(received)]).toEqual([bytes.length, sha256Hex(bytes)]);
    } finally {
      rmSync(join(homes.alice, 'big.bin'));
    }
  });

  if (fileWork === 'worker') {
    test("a reply of the wrong shape stops alice's worker and fails the request clearly; the next gets a new worker", async () => {
      const pool = api.fileWork.pool;
      if (pool === undefined) throw new Error('file workers are installed in this mode');
      const workerOf = () =>
        [...pool.workers().entries()].find(([key]) => (JSON.parse(key) as unknown[])[1] === homes.alice)?.[1];
      expect((await api.request('GET', files(aliceId), { token: tokens.alice })).status).toBe(200);
      const worker = workerOf();
      if (worker === undefined) throw new Error("alice's worker is not running");
      const original = worker.call.bind(worker);
      worker.call = async (...args) => {
        const reply = await original(...args);
        return args[0] === 'openDownload'
          ? { ...reply, result: { ...(reply.result as object), identity: '../x' } }
          : reply;
      };
      const failed = await api.request('GET', files(aliceId, '/content?path=a.txt'), { token: tokens.alice });
      expect([failed.status, failed.json]).toEqual([
        500,
        {
          error:
            'The file worker of this call sent a reply that is not valid (identity is not a device:inode pair); it was stopped, and nothing of the reply was used.',
          code: 'execution_error',
        },
      ]);
      await worker.exited;
      expect(worker.alive).toBe(false);
      const again = await send(tokens.alice, 'GET', files(aliceId, '/content?path=a.txt'));
      expect([again.status, await again.text()]).toEqual([200, 'alpha\n']);
      expect(workerOf()).not.toBe(worker);
    });
  }

  test('a file name cannot break out of Content-Disposition', async () => {
    const name = 'we"ird\\\ná.txt';
    writeFileSync(join(homes.alice, name), 'x');
    const response = await send(
      tokens.alice,
      'GET',
      files(aliceId, `/content?path=${encodeURIComponent(name)}`),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="we_ird___.txt"; filename*=UTF-8''we%22ird%5C%0A%C3%A1.txt`,
    );
    expect(await response.text()).toBe('x');
    rmSync(join(homes.alice, name));
  });

  test('a FIFO is refused at once, without blocking; a directory is not a download', async () => {
    const started = performance.now();
    const fifo = await api.request('GET', files(aliceId, '/content?path=pipe'), { token: tokens.alice });
    expect(fifo.status).toBe(422);
    expect(fifo.json).toEqual({
      error: '"pipe" is not a regular file (a FIFO, socket or device), so it cannot be downloaded.',
      code: 'not_a_file',
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    const directory = await api.request('GET', files(aliceId, '/content?path=src'), { token: tokens.alice });
    expect(directory.status).toBe(422);
    expect((directory.json as { code: string }).code).toBe('not_a_file');
  });

  test('everything outside the workspace gets the one byte-identical 422', async () => {
    const data = api.handle.config.dataDirectory;
    const requests: [string, string][] = [
      ['GET', files(bobId)],
      ['GET', files(bobId, '/content?path=secret.txt')],
      ['GET', files(aliceId, `?path=${encodeURIComponent(`../${homes.bob.split('/').pop()}`)}`)],
      ['GET', files(aliceId, '/content?path=to-bob')],
      ['GET', files(aliceId, '?path=bob-dir')],
      ['GET', files(aliceId, '/content?path=bob-dir/secret.txt')],
      ['GET', files(aliceId, `/content?path=${encodeURIComponent(`../../../../../../..${data}/mango.db`)}`)],
      [
        'GET',
        files(
          aliceId,
          `/content?path=${encodeURIComponent(`../../../../../../..${installationDirectory()}/package.json`)}`,
        ),
      ],
      ['GET', files(aliceId, '?path=../../../../../../../proc/self')],
      ['GET', files(workspaceId(data))],
      ['GET', files(workspaceId(installationDirectory()))],
      ['GET', files('ws_00000000000000000000')],
      ['GET', files('not-an-id')],
      ['POST', files(bobId, '?name=planted.txt')],
      ['POST', files(aliceId, '?path=bob-dir&name=planted.txt')],
      ['POST', files(aliceId, '?name=to-bob&overwrite=true')],
      [
        'POST',
        files(aliceId, `?path=${encodeURIComponent(`../${homes.bob.split('/').pop()}`)}&name=planted.txt`),
      ],
    ];
    for (const [method, path] of requests) {
      const response = await send(tokens.alice, method, path, method === 'POST' ? 'planted' : undefined);
      expect([path, response.status]).toEqual([path, 422]);
      expect(await response.text()).toBe(OUTSIDE_BODY);
    }
    expect(existsSync(join(homes.bob, 'planted.txt'))).toBe(false);
    expect(readdirSync(homes.bob)).toEqual(['secret.txt']);
  });

  test('a missing path is a 404 naming it, a file is not a folder, and the wrong thing at a name is refused', async () => {
    const answers: [string, string, number, unknown][] = [
      [
        'GET',
        files(aliceId, '?path=nope'),
        404,
        { error: 'Nothing exists at "nope" in this workspace.', code: 'not_found' },
      ],
      [
        'GET',
        files(aliceId, '/content?path=src/nope.ts'),
        404,
        { error: 'Nothing exists at "src/nope.ts" in this workspace.', code: 'not_found' },
      ],
      [
        'GET',
        files(aliceId, '?path=a.txt'),
        422,
        {
          error: `"a.txt" is a file, not a directory; download it with GET /api/workspaces/${aliceId}/files/content?path=…`,
          code: 'not_a_directory',
        },
      ],
      [
        'POST',
        files(aliceId, '?path=nope&name=x.txt'),
        404,
        { error: 'Nothing exists at "nope" in this workspace.', code: 'not_found' },
      ],
      [
        'POST',
        files(aliceId, '?path=a.txt&name=x.txt'),
        422,
        { error: '"a.txt" is not a directory.', code: 'not_a_directory' },
      ],
      [
        'POST',
        files(aliceId, '?name=src&overwrite=true'),
        422,
        { error: 'Refusing to write "src": it is a directory.', code: 'not_a_regular_file' },
      ],
      [
        'POST',
        files(aliceId, '?name=pipe&overwrite=true'),
        422,
        { error: 'Refusing to write "pipe": it is not a regular file.', code: 'not_a_regular_file' },
      ],
    ];
    for (const [method, path, status, body] of answers) {
      const response = await send(tokens.alice, method, path, method === 'POST' ? 'x' : undefined);
      expect([path, response.status, await response.json()]).toEqual([path, status, body]);
    }
    expect(existsSync(join(homes.alice, 'x.txt'))).toBe(false);
  });

  test('a listing holds at most 1000 entries, folders first, and says it was cut', async () => {
    const crowded = join(homes.alice, 'crowded');
    mkdirSync(crowded);
    for (let index = 0; index < 1003; index++)
      writeFileSync(join(crowded, `f${String(index).padStart(4, '0')}`), '');
    for (const name of ['zz-dir', 'aa-dir']) mkdirSync(join(crowded, name));
    try {
      const response = await api.request('GET', files(aliceId, '?path=crowded'), { token: tokens.alice });
      expect(response.status).toBe(200);
      const listing = response.json as { entries: { name: string }[]; truncated: boolean; omitted: number };
      expect([listing.entries.length, listing.truncated, listing.omitted]).toEqual([1000, true, 0]);
      expect(listing.entries.slice(0, 3).map((entry) => entry.name)).toEqual(['aa-dir', 'zz-dir', 'f0000']);
      expect(listing.entries.at(-1)?.name).toBe('f0997');
    } finally {
      rmSync(crowded, { recursive: true });
    }
  });

  test('absolute and ~ paths are refused as not relative', async () => {
    const response = await api.request('GET', files(aliceId, '?path=/etc'), { token: tokens.alice });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      error: 'Query parameter path must be relative to the workspace root ("" for the root); got "/etc".',
      code: 'invalid_request',
    });
  });

  test('uploads atomically; never overwrites unless asked; a bad name is refused', async () => {
    const created = await send(tokens.alice, 'POST', files(aliceId, '?path=src&name=notes.md'), 'first');
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({
      workspace: aliceId,
      path: 'src/notes.md',
      size: 5,
      replaced: false,
    });
    expect(readFileSync(join(homes.alice, 'src', 'notes.md'), 'utf8')).toBe('first');

    const again = await send(tokens.alice, 'POST', files(aliceId, '?path=src&name=notes.md'), 'second');
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({
      error: '"src/notes.md" already exists; send overwrite=true to replace it.',
      code: 'file_exists',
    });
    expect(readFileSync(join(homes.alice, 'src', 'notes.md'), 'utf8')).toBe('first');

    const replaced = await send(
      tokens.alice,
      'POST',
      files(aliceId, '?path=src&name=notes.md&overwrite=true'),
      'second',
    );
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toEqual({
      workspace: aliceId,
      path: 'src/notes.md',
      size: 6,
      replaced: true,
    });
    expect(readFileSync(join(homes.alice, 'src', 'notes.md'), 'utf8')).toBe('second');

    for (const [name, why] of [
      ['..', 'must name a file, not "." or ".."'],
      ['a/b', 'must be a single file name without "/"'],
      ['a\0b', 'must not contain a NUL byte'],
    ] as const) {
      const refused = await send(
        tokens.alice,
        'POST',
        files(aliceId, `?name=${encodeURIComponent(name)}`),
        'x',
      );
      expect(refused.status).toBe(400);
      expect(await refused.json()).toEqual({
        error: `Query parameter name ${why}; got ${JSON.stringify(name)}.`,
        code: 'invalid_request',
      });
    }
    const onLink = await send(tokens.alice, 'POST', files(aliceId, '?name=inside-link&overwrite=true'), 'x');
    expect(onLink.status).toBe(422);
    expect(((await onLink.json()) as { code: string }).code).toBe('not_a_regular_file');
    expect(readFileSync(join(homes.alice, 'a.txt'), 'utf8')).toBe('alpha\n');
    expect(readdirSync(join(homes.alice, 'src')).filter((name) => name.includes('mango-tmp'))).toEqual([]);
  });

  test('a read-only workspace takes no upload, but lists and downloads', async () => {
    const refused = await send(tokens.alice, 'POST', files(sharedId, '?name=x.txt'), 'x');
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      error: `The workspace ${shared} is read-only for you: nothing can be uploaded into it.`,
      code: 'permission_denied',
    });
    expect(existsSync(join(shared, 'x.txt'))).toBe(false);
    const listed = await api.request('GET', files(sharedId), { token: tokens.alice });
    expect(listed.json).toMatchObject({ entries: [{ name: 'readme.md', type: 'file', size: 9 }] });
    const downloaded = await send(tokens.alice, 'GET', files(sharedId, '/content?path=readme.md'));
    expect(await downloaded.text()).toBe('# shared\n');
  });
  test(
    fileWork === 'worker'
      ? "the file work runs in alice's worker, as her uid: a file only root may read is listed, not served"
      : 'the server does the file work itself, as root: a file only root may read is served',
    async () => {
      const alice = await api.deps.users.findByName('alice');
      writeFileSync(join(homes.alice, 'root-only.txt'), 'root\n', { mode: 0o600 });
      try {
        const listed = await api.request('GET', files(aliceId), { token: tokens.alice });
        expect((listed.json as { entries: { name: string }[] }).entries.map((entry) => entry.name)).toContain(
          'root-only.txt',
        );
        const uploaded = await send(tokens.alice, 'POST', files(aliceId, '?name=by-upload.txt'), 'up');
        expect(uploaded.status).toBe(201);
        const response = await send(tokens.alice, 'GET', files(aliceId, '/content?path=root-only.txt'));
        const pool = api.fileWork.pool;
        if (fileWork === 'worker') {
          expect(response.status).toBe(403);
          expect(await response.json()).toEqual({
            error: 'Cannot open "root-only.txt": the operating system denied access (EACCES).',
            code: 'permission_denied',
          });
          // Alice's workers: one per workspace her requests named (the read-only one's too), each over
          // that workspace alone; the one of her personal workspace did this listing, upload and download.
          const keys = [...(pool?.workers().keys() ?? [])].map((key) => JSON.parse(key) as unknown[]);
          expect(
            keys
              .filter((key) => key[0] === alice!.id)
              .map((key) => key[1])
              .sort(),
          ).toEqual([homes.alice, shared].sort());
        } else {
          expect(response.status).toBe(200);
          expect(await response.text()).toBe('root\n');
          expect(pool).toBeUndefined();
        }
      } finally {
        rmSync(join(homes.alice, 'root-only.txt'));
        rmSync(join(homes.alice, 'by-upload.txt'), { force: true });
      }
    },
  );
});

describe.each(FILE_WORK)('upload size cap, file work %s', (fileWork) => {
  let api: TestApp;
  let token = '';
  let home = '';

  beforeAll(async () => {
    api = await createTestApp('sqlite', undefined, { fileWork });
    api.deps = createAppDependencies({
      config: { ...api.handle.config, maxUploadBytes: 2 * 1024 * 1024 },
      database: api.handle.database,
      now: () => FIXED_NOW,
      log: () => {},
    });
    api.app = createApp(api.deps);
    const created = await api.deps.users.create('carol');
    token = created.token;
    home = await api.deps.workspaces.personalWorkspace(created.user.id);
  });
  afterAll(() => api.dispose());

  const upload = (body: BodyInit, headers: Record<string, string> = {}) =>
    api.app.handle(
      new Request(`http://localhost/api/workspaces/${workspaceId(home)}/files?name=big.bin`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, ...headers },
        body,
      }),
    );

  test('a file above the general body limit but within the upload cap is accepted', async () => {
    const response = await upload(new Uint8Array(1536 * 1024).fill(7));
    expect(response.status).toBe(201);
    expect(readFileSync(join(home, 'big.bin')).length).toBe(1536 * 1024);
    rmSync(join(home, 'big.bin'));
  });

  test('past the cap: 413 by Content-Length, and by counting a body that declares none', async () => {
    const declared = await upload(new Uint8Array(2 * 1024 * 1024 + 1), {
      'content-length': String(2 * 1024 * 1024 + 1),
    });
    expect(declared.status).toBe(413);
    expect(await declared.json()).toEqual({
      error: 'The request body exceeds 2097152 bytes.',
      code: 'payload_too_large',
    });
    const chunks = [new Uint8Array(1024 * 1024), new Uint8Array(1024 * 1024), new Uint8Array(1)];
    const streamed = await upload(
      new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(next);
        },
      }),
    );
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toEqual({
      error: 'The uploaded file exceeds 2097152 bytes (MANGO_MAX_UPLOAD_BYTES).',
      code: 'payload_too_large',
    });
    expect(readdirSync(home)).toEqual([]);
  });
});
