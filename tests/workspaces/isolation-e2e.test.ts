/**
 * Tenant isolation over the real HTTP API on loopback, with real users, real files and the real file
 * tools: alice's chat cannot name, list, read, grep or write anything of bob's or of the server's; every
 * path outside her workspaces gets one byte-identical 422; a revoked grant applies at the next call.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { createApp } from '../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../src/http/app-dependencies.ts';
import { installationDirectory } from '../../src/workspaces/installation-directory.ts';
import { workspaceId } from '../../src/workspaces/workspace-id.ts';
import {
  ScriptedProvider,
  type ScriptStep,
  textResponse,
  toolCallsResponse,
} from '../helpers/scripted-provider.ts';
import { collectSseEvents } from '../helpers/sse-client.ts';
import { createStubProviderRegistry } from '../helpers/stub-provider-registry.ts';
import { FIXED_NOW } from '../helpers/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

const OUTSIDE_BODY =
  '{"error":"The working directory is not inside any of your workspaces (GET /api/workspaces lists them).","code":"invalid_working_directory"}';

let handle: TestDatabase;
let deps: AppDependencies;
let server: ReturnType<typeof Bun.serve>;
let base: string;
let shared: string;
const tokens = { alice: '', bob: '' };
const ids = { alice: '', bob: '' };
let script: ScriptStep[] = [];
const provider = new ScriptedProvider([], { id: 'openai', repeat: textResponse('done') });

async function api(token: string, method: string, path: string, body?: unknown) {
  return fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Runs one turn of a new chat of alice's that makes `calls`, and returns each tool result event. */
async function toolResults(steps: ScriptStep[], chat: Record<string, unknown> = {}) {
  script = steps;
  const created = await api(tokens.alice, 'POST', '/api/chats', { provider: 'openai', model: 'm', ...chat });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const turn = await api(tokens.alice, 'POST', `/api/chats/${id}/turns`, { message: 'go' });
  expect(turn.status).toBe(200);
  const events = await collectSseEvents(turn);
  return events.filter((event) => event.type === 'tool_result') as {
    ok: boolean;
    error?: { classification: string };
  }[];
}

beforeAll(async () => {
  handle = await createTestDatabase('sqlite');
  shared = realpathSync(mkdtempSync(join(tmpdir(), 'mango-isolation-shared-')));
  deps = createAppDependencies({
    config: handle.config,
    database: handle.database,
    now: () => FIXED_NOW,
    providers: createStubProviderRegistry({
      openai: {
        id: 'openai',
        stream: (request) => {
          const step = script.shift();
          if (step === undefined) return provider.stream(request);
          return new ScriptedProvider([step], { id: 'openai' }).stream(request);
        },
      },
    }),
    log: () => {},
  });
  const app = createApp(deps);
  server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => app.handle(request) });
  base = `http://127.0.0.1:${server.port}`;
  for (const name of ['alice', 'bob'] as const) {
    const created = await deps.users.create(name);
    tokens[name] = created.token;
    ids[name] = created.user.id;
    // Isolation is the subject here, not approvals: the writing tools run without asking.
    for (const tool of ['write_file', 'edit_file']) {
      await deps.toolSettings.update(created.user.id, tool, { parameters: { approval: 'never' } });
    }
  }
  const bobHome = await deps.workspaces.personalWorkspace(ids.bob);
  writeFileSync(join(bobHome, 'secret.txt'), 'bob-secret\n');
}, 30_000);

afterAll(async () => {
  await server.stop(true);
  await handle.dispose();
  rmSync(shared, { recursive: true, force: true });
});

describe('isolation over the real HTTP API', () => {
  test('GET /api/workspaces lists the caller’s workspaces; ~ is the personal workspace', async () => {
    const response = await api(tokens.alice, 'GET', '/api/workspaces');
    const personal = join(handle.config.workspacesDirectory, ids.alice);
    expect(await response.json()).toEqual({
      workspaces: [
        {
          id: workspaceId(realpathSync(personal)),
          name: 'My workspace',
          path: realpathSync(personal),
          access: 'read-write',
          kind: 'personal',
        },
      ],
      allowUnrestricted: false,
    });
    mkdirSync(join(personal, 'b-dir'));
    mkdirSync(join(personal, 'a-dir'));
    writeFileSync(join(personal, 'c-file'), '');
    const listed = await api(tokens.alice, 'GET', '/api/workspaces/directories?path=~');
    expect(await listed.json()).toEqual({ path: realpathSync(personal), directories: ['a-dir', 'b-dir'] });
    const chat = await api(tokens.alice, 'POST', '/api/chats', {
      provider: 'openai',
      model: 'm',
      workingDirectory: '~/a-dir',
    });
    expect(((await chat.json()) as { workingDirectory: string }).workingDirectory).toBe(
      join(realpathSync(personal), 'a-dir'),
    );
  });

  test('every path outside the caller’s workspaces gets one byte-identical 422, in chats and the folder picker', async () => {
    const bobHome = join(handle.config.workspacesDirectory, ids.bob);
    const outside = [
      bobHome,
      join(bobHome, 'missing'),
      handle.config.dataDirectory,
      installationDirectory(),
      handle.config.workspacesDirectory,
      '/etc',
      '/definitely/not/here',
      '/proc/self',
      `${join(handle.config.workspacesDirectory, ids.alice)}/../${ids.bob}`,
    ];
    for (const path of outside) {
      const created = await api(tokens.alice, 'POST', '/api/chats', {
        provider: 'openai',
        model: 'm',
        workingDirectory: path,
      });
      expect({ path, status: created.status, body: await created.text() }).toEqual({
        path,
        status: 422,
        body: OUTSIDE_BODY,
      });
      const listed = await api(
        tokens.alice,
        'GET',
        `/api/workspaces/directories?path=${encodeURIComponent(path)}`,
      );
      expect({ path, status: listed.status, body: await listed.text() }).toEqual({
        path,
        status: 422,
        body: OUTSIDE_BODY,
      });
    }
  });

  test("alice's chat cannot read, list, grep, glob or write bob's files or the server's", async () => {
    const bobHome = join(handle.config.workspacesDirectory, ids.bob);
    const database = join(handle.config.dataDirectory, 'mango.db');
    const installedPackage = join(installationDirectory(), 'package.json');
    const beforeDatabase = readFileSync(database);
    const calls = [
      { id: '1', name: 'read_file', arguments: { path: join(bobHome, 'secret.txt') } },
      { id: '2', name: 'list_directory', arguments: { path: bobHome } },
      { id: '3', name: 'grep', arguments: { pattern: 'bob-secret', path: bobHome } },
      { id: '4', name: 'glob', arguments: { pattern: '*', cwd: bobHome } },
      { id: '5', name: 'write_file', arguments: { path: join(bobHome, 'planted.txt'), content: 'x' } },
      { id: '6', name: 'read_file', arguments: { path: database } },
      { id: '7', name: 'write_file', arguments: { path: database, content: 'x' } },
      { id: '8', name: 'read_file', arguments: { path: installedPackage } },
      { id: '9', name: 'list_directory', arguments: { path: handle.config.dataDirectory } },
      { id: '10', name: 'read_file', arguments: { path: '/proc/self/environ' } },
      { id: '11', name: 'read_file', arguments: { path: '../secret.txt' } },
    ];
    const results = await toolResults([toolCallsResponse(calls)]);
    expect(results.map((result) => [result.ok, result.error?.classification])).toEqual(
      calls.map(() => [false, 'permission_denied']),
    );
    expect(existsSync(join(bobHome, 'planted.txt'))).toBe(false);
    expect(readFileSync(database).equals(beforeDatabase)).toBe(true);
  });

  test('a revoked grant applies at the chat’s next tool call, in the same turn', async () => {
    writeFileSync(join(shared, 'note.txt'), 'shared\n');
    await deps.workspaces.grant(ids.alice, shared, false);
    const results = await toolResults(
      [
        toolCallsResponse([{ id: 'a', name: 'read_file', arguments: { path: 'note.txt' } }]),
        async function* (request) {
          await deps.workspaces.revoke(ids.alice, shared);
          yield* new ScriptedProvider(
            [toolCallsResponse([{ id: 'b', name: 'read_file', arguments: { path: 'note.txt' } }])],
            {
              id: 'openai',
            },
          ).stream(request);
        },
      ],
      { workingDirectory: shared },
    );
    expect(results.map((result) => [result.ok, result.error?.classification])).toEqual([
      [true, undefined],
      [false, 'permission_denied'],
    ]);
    const created = await api(tokens.alice, 'POST', '/api/chats', {
      provider: 'openai',
      model: 'm',
      workingDirectory: shared,
    });
    expect(await created.text()).toBe(OUTSIDE_BODY);
  });

  test('grants of protected directories are refused', async () => {
    for (const [directory, reason] of [
      [handle.config.dataDirectory, "lies inside the server's data directory"],
      [installationDirectory(), "lies inside the server's installation directory"],
      [join(handle.config.workspacesDirectory, ids.bob), 'lies inside the workspaces directory'],
      ['/', "contains the server's data directory"],
      ['/proc', "lies inside the kernel's process view"],
    ] as const) {
      await expect(deps.workspaces.grant(ids.alice, directory, false)).rejects.toThrow(reason);
    }
    expect(await deps.workspaces.listGrants(ids.alice)).toEqual([]);
  });
});
