/**
 * The served web app is the bytes loaded at start: a real server on loopback over its own build in a
 * temp dir keeps serving the original app.js and index.html after both are overwritten on disk, never
 * serves a file added later, and refuses to start on a build that no longer matches its manifest.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { cp, mkdtemp, readFile, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type RunningServer, startServer } from '../../src/server/start-server.ts';
import {
  loadWebApp,
  sha256Hex,
  WEB_BUILD_MANIFEST_FILE,
  WebAppIntegrityError,
} from '../../src/web/load-web-app.ts';
import { buildWebApp } from '../../src/web/web-build.ts';
import { createTestRegistry } from '../helpers/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

let root: string;
let build: string;
let handle: TestDatabase | undefined;
let server: RunningServer | undefined;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'mango-web-bytes-'));
  build = path.join(root, 'build');
  await buildWebApp({ outputDirectory: build });
}, 60_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});
afterEach(async () => {
  await server?.stop();
  await handle?.dispose();
  server = undefined;
  handle = undefined;
});

let copies = 0;
/** A fresh copy of the build, so each test may tamper with its own. */
async function copyOfBuild(): Promise<string> {
  copies += 1;
  const copy = path.join(root, `copy-${copies}`);
  await cp(build, copy, { recursive: true });
  return copy;
}

async function start(webDirectory: string): Promise<{ server: RunningServer; printed: string[] }> {
  handle = await createTestDatabase('sqlite', { migrate: false });
  const printed: string[] = [];
  server = await startServer(
    { ...handle.config, webDirectory },
    { print: (line) => printed.push(line), registry: createTestRegistry() },
  );
  return { server, printed };
}

const bytesOf = async (response: Response) => new Uint8Array(await response.arrayBuffer());

describe('the build manifest', () => {
  test('lists every built file with the SHA-256 of its bytes', async () => {
    const manifest = JSON.parse(await readFile(path.join(build, WEB_BUILD_MANIFEST_FILE), 'utf8'));
    const names = Object.keys(manifest.files);
    expect(names.filter((name) => name.endsWith('.woff2')).length).toBe(20);
    expect(names.filter((name) => !name.startsWith('chunk-') && !name.endsWith('.woff2'))).toEqual([
      'app.css',
      'app.css.br',
      'app.css.gz',
      'app.js',
      'app.js.br',
      'app.js.gz',
      'app.js.map',
      'favicon.svg',
      'favicon.svg.br',
      'favicon.svg.gz',
      'index.html',
      'index.html.br',
      'index.html.gz',
      'katex-LICENSE.txt',
      'katex-LICENSE.txt.br',
      'katex-LICENSE.txt.gz',
      'katex.css',
      'katex.css.br',
      'katex.css.gz',
    ]);
    expect(names.length).toBeGreaterThan(5);
    expect(manifest.format).toBe(1);
    for (const [name, hash] of Object.entries(manifest.files)) {
      expect(hash).toBe(sha256Hex(await readFile(path.join(build, name))));
    }
  });
});

describe('a running server serves the bytes it loaded', () => {
  test('overwriting app.js and index.html on disk changes nothing served; an added file is never served', async () => {
    const directory = await copyOfBuild();
    const originalScript = new Uint8Array(await readFile(path.join(directory, 'app.js')));
    const originalShell = new Uint8Array(await readFile(path.join(directory, 'index.html')));
    const { server: running } = await start(directory);
    expect(await bytesOf(await fetch(`${running.url}/app.js`))).toEqual(originalScript);

    await writeFile(path.join(directory, 'app.js'), 'fetch("/steal?t="+localStorage.token);');
    await writeFile(path.join(directory, 'index.html'), '<script>alert(1)</script>');
    await writeFile(path.join(directory, 'extra.js'), 'alert(2);');

    // Identity, so the ETag is the file's own (each compressed copy has its own).
    const script = await fetch(`${running.url}/app.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(script.status).toBe(200);
    expect(script.headers.get('etag')).toBe(`"${sha256Hex(originalScript)}"`);
    expect(await bytesOf(script)).toEqual(originalScript);
    for (const route of ['/', '/index.html', '/chats/some-id']) {
      const shell = await fetch(`${running.url}${route}`);
      expect(shell.status).toBe(200);
      expect(await bytesOf(shell)).toEqual(originalShell);
    }
    const extra = await fetch(`${running.url}/extra.js`);
    expect(extra.status).toBe(404);
    expect(await extra.json()).toEqual({ error: 'Not found', code: 'not_found' });
  });

  test('a directory without a build starts the API, says so once, and answers the pages with 503', async () => {
    const empty = await mkdtemp(path.join(root, 'empty-'));
    const { server: running, printed } = await start(empty);
    expect(printed.filter((line) => line.includes('web app is not built'))).toEqual([
      `The web app is not built (${empty}): pages answer 503 until \`npm run build\`.`,
    ]);
    const page = await fetch(`${running.url}/tools`);
    expect(page.status).toBe(503);
    expect(await page.text()).toBe('The web app is not built: run `npm run build`.\n');
    expect((await fetch(`${running.url}/api/settings/tools`)).status).toBe(401);
  });
});

describe('a build that does not match its manifest is refused', () => {
  test('a changed app.js stops the start with the file, both hashes and the fix', async () => {
    const directory = await copyOfBuild();
    const expected = sha256Hex(await readFile(path.join(directory, 'app.js')));
    const tampered = 'alert("tampered");';
    await writeFile(path.join(directory, 'app.js'), tampered);
    handle = await createTestDatabase('sqlite', { migrate: false });
    const config = { ...handle.config, webDirectory: directory };
    const failure = await startServer(config, { print: () => {}, registry: createTestRegistry() }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure).toBeInstanceOf(WebAppIntegrityError);
    expect(failure?.message).toBe(
      `The web build in ${directory} was changed after it was built: app.js has SHA-256 ` +
        `${sha256Hex(new TextEncoder().encode(tampered))}, its build recorded ${expected}. ` +
        'Rebuild the web app with `npm run build` (or `npm start`, which rebuilds it).',
    );
  });

  test('a listed file that is missing', async () => {
    const directory = await copyOfBuild();
    await unlink(path.join(directory, 'app.css'));
    await expect(loadWebApp(directory)).rejects.toThrow(
      `The web build in ${directory} is incomplete: app.css is missing.`,
    );
  });

  test('a listed file replaced by a symbolic link, even to identical bytes', async () => {
    const directory = await copyOfBuild();
    await cp(path.join(directory, 'app.js'), path.join(root, 'elsewhere.js'));
    await unlink(path.join(directory, 'app.js'));
    await symlink(path.join(root, 'elsewhere.js'), path.join(directory, 'app.js'));
    await expect(loadWebApp(directory)).rejects.toThrow(
      `${path.join(directory, 'app.js')} is a symbolic link, not a built file.`,
    );
  });

  test('a listed file replaced by a FIFO is refused without blocking', async () => {
    const directory = await copyOfBuild();
    await unlink(path.join(directory, 'app.css'));
    const made = Bun.spawnSync(['mkfifo', path.join(directory, 'app.css')]);
    expect(made.exitCode).toBe(0);
    await expect(loadWebApp(directory)).rejects.toThrow(
      `${path.join(directory, 'app.css')} is not a regular file.`,
    );
  }, 5_000);

  test.each([
    [
      { format: 1, files: { '../outside.txt': 'a'.repeat(64), 'index.html': 'b'.repeat(64) } },
      'lists "../outside.txt", which is not a plain file name.',
    ],
    [
      { format: 1, files: { 'index.html': 'not-a-hash' } },
      'gives index.html the hash "not-a-hash"; expected 64 hex digits.',
    ],
    [{ format: 2, files: {} }, 'has format 2; expected 1.'],
    [{ format: 1, files: { 'app.js': 'a'.repeat(64) } }, 'does not list index.html.'],
    [{ format: 1 }, 'has no "files" object.'],
  ])('a manifest %j', async (manifest, message) => {
    const directory = await copyOfBuild();
    await writeFile(path.join(directory, WEB_BUILD_MANIFEST_FILE), JSON.stringify(manifest));
    await expect(loadWebApp(directory)).rejects.toThrow(
      `${path.join(directory, WEB_BUILD_MANIFEST_FILE)} ${message}`,
    );
  });

  test('a manifest that is not JSON', async () => {
    const directory = await copyOfBuild();
    await writeFile(path.join(directory, WEB_BUILD_MANIFEST_FILE), '{');
    await expect(loadWebApp(directory)).rejects.toBeInstanceOf(WebAppIntegrityError);
  });
});
