/**
 * `/api/mcp-servers` in process over the real database (both backends), with server-everything over
 * Streamable HTTP as the server users add: each user sees only their own servers and tools, header
 * values are stored encrypted and never returned, operator names cannot be shadowed or changed, and
 * without `MANGO_SECRET_KEY` servers with headers are refused.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../../src/http/app-dependencies.ts';
import { ToolRegistry } from '../../../src/tools/registry.ts';
import { makeTool } from '../../helpers/fake-tools.ts';
import { FIXED_NOW } from '../../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';
import { type EverythingOverHttp, startEverythingOverHttp } from '../../mcp-client/external-servers.ts';

const SECRET = 'test-secret-key-0123456789abcdef-XYZ';

let everything: EverythingOverHttp;
let url: string;
let directory: string;

beforeAll(async () => {
  everything = await startEverythingOverHttp();
  url = everything.url;
  directory = mkdtempSync(join(tmpdir(), 'mango-mcp-routes-'));
  writeFileSync(
    join(directory, 'servers.json'),
    JSON.stringify({ mcpServers: { shared: { type: 'http', url } } }),
  );
}, 30_000);
afterAll(async () => {
  await everything.stop();
  rmSync(directory, { recursive: true, force: true });
});

describe.each(BACKENDS)('/api/mcp-servers on %s', (backend) => {
  let handle: TestDatabase;
  let deps: AppDependencies;
  let app: ReturnType<typeof createApp>;
  const tokens: Record<string, string> = {};
  const registry = new ToolRegistry();
  registry.register(makeTool({ name: 'builtin_probe' }));

  const build = (environment: Record<string, string>) => {
    deps = createAppDependencies({
      config: handle.config,
      database: handle.database,
      registry,
      now: () => FIXED_NOW,
      environment: {
        MANGO_MCP_SERVERS: join(directory, 'servers.json'),
        MANGO_MCP_ALLOW_PRIVATE: '1',
        ...environment,
      },
      log: () => {},
    });
    app = createApp(deps);
  };
  const call = async (user: string, method: string, path: string, body?: unknown) => {
    const response = await app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${tokens[user]}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>),
    };
  };
  const toolNames = async (user: string) =>
    (((await call(user, 'GET', '/api/settings/tools')).body?.tools ?? []) as { name: string }[]).map(
      (tool) => tool.name,
    );

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    build({ MANGO_SECRET_KEY: SECRET });
    for (const name of ['ann', 'ben']) tokens[name] = (await deps.users.create(name)).token;
  }, 30_000);
  afterAll(async () => {
    await deps.externalTools?.close();
    await handle.dispose();
  });

  test('a user adds a server with a header; the value is stored sealed and never returned', async () => {
    const created = await call('ann', 'POST', '/api/mcp-servers', {
      name: 'mine',
      url,
      headers: { Authorization: 'Bearer ann-secret-token' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'mine',
      origin: 'user',
      transport: 'http',
      url,
      headerNames: ['Authorization'],
      state: { status: 'connected' },
    });
    expect(JSON.stringify(created.body)).not.toContain('ann-secret-token');
    const rows: { sealed_headers: string }[] = await handle.database
      .sql`SELECT sealed_headers FROM user_mcp_servers`;
    expect(rows).toHaveLength(1);
    expect(rows[0]?.sealed_headers).toStartWith('v1:');
    expect(rows[0]?.sealed_headers).not.toContain('ann-secret-token');
    const listed = await call('ann', 'GET', '/api/mcp-servers');
    expect(
      ((listed.body?.servers ?? []) as { name: string; origin: string }[]).map((server) => [
        server.name,
        server.origin,
      ]),
    ).toEqual([
      ['shared', 'operator'],
      ['mine', 'user'],
    ]);
    expect(JSON.stringify(listed.body)).not.toContain('ann-secret-token');
  });

  test('each user sees only their own servers and tools', async () => {
    expect((await call('ben', 'POST', '/api/mcp-servers', { name: 'bens', url })).status).toBe(201);
    const ann = await toolNames('ann');
    const ben = await toolNames('ben');
    expect(ann).toContain('mcp__mine__echo');
    expect(ann).toContain('mcp__shared__echo');
    expect(ann.some((name) => name.startsWith('mcp__bens__'))).toBe(false);
    expect(ben).toContain('mcp__bens__echo');
    expect(ben.some((name) => name.startsWith('mcp__mine__'))).toBe(false);
    expect((await call('ben', 'PATCH', '/api/mcp-servers/mine', { url })).status).toBe(404);
    expect((await call('ben', 'DELETE', '/api/mcp-servers/mine')).status).toBe(404);
  });

  test('names: no shadowing the operator’s, no duplicates, no changing the operator’s', async () => {
    expect(await call('ann', 'POST', '/api/mcp-servers', { name: 'shared', url })).toEqual({
      status: 409,
      body: {
        error: '"shared" is the name of an operator\'s MCP server; choose another.',
        code: 'name_taken',
      },
    });
    expect((await call('ann', 'POST', '/api/mcp-servers', { name: 'mine', url })).status).toBe(409);
    expect((await call('ann', 'PATCH', '/api/mcp-servers/shared', { url })).body?.code).toBe(
      'operator_server',
    );
    expect((await call('ann', 'DELETE', '/api/mcp-servers/shared')).status).toBe(409);
  });

  test.each([
    [{ name: 'bad.name', url: 'https://x.example/mcp' }, 'name must be 1–32 letters'],
    [
      { name: 'ok', url: 'ftp://x.example/' },
      'url must be an http:// or https:// URL, got the string "ftp://x.example/".',
    ],
    [{ name: 'ok', url: 'https://u:p@x.example/' }, 'url must be a URL without user name or password'],
    [
      { name: 'ok', url: 'https://x.example/', headers: { 'bad header': 'x' } },
      'headers key must be a header name',
    ],
  ])('a bad server is refused with 422: %j', async (body, message) => {
    const refused = await call('ann', 'POST', '/api/mcp-servers', body);
    expect(refused.status).toBe(422);
    expect(refused.body?.code).toBe('invalid_request');
    expect(String(refused.body?.error)).toContain(message);
  });

  test('PATCH keeps the headers unless given, DELETE removes the server and its tools', async () => {
    const patched = await call('ann', 'PATCH', '/api/mcp-servers/mine', { url: `${url}?v=2` });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ url: `${url}?v=2`, headerNames: ['Authorization'] });
    const cleared = await call('ann', 'PATCH', '/api/mcp-servers/mine', { headers: {} });
    expect(cleared.body).toMatchObject({ headerNames: [] });
    expect((await call('ann', 'DELETE', '/api/mcp-servers/mine')).status).toBe(204);
    expect((await toolNames('ann')).some((name) => name.startsWith('mcp__mine__'))).toBe(false);
  });

  test('without MANGO_SECRET_KEY a server with headers is refused, one without is accepted', async () => {
    await deps.externalTools?.close();
    build({});
    const refused = await call('ann', 'POST', '/api/mcp-servers', {
      name: 'keyed',
      url,
      headers: { A: 'b' },
    });
    expect(refused.status).toBe(422);
    expect(refused.body?.error).toBe(
      'Servers with headers cannot be added here: the operator has not set MANGO_SECRET_KEY, which they are stored encrypted with.',
    );
    expect((await call('ann', 'POST', '/api/mcp-servers', { name: 'open', url })).status).toBe(201);
    expect(await toolNames('ann')).toContain('mcp__open__echo');
  });

  test('a listing over a bound is a failed server in GET /api/mcp-servers, naming the bound', async () => {
    await deps.externalTools?.close();
    build({ MANGO_MCP_MAX_DESCRIPTION_BYTES: '16' });
    const listed = await call('ann', 'GET', '/api/mcp-servers');
    const servers = (listed.body?.servers ?? []) as {
      name: string;
      state: { status: string; error?: string };
    }[];
    const shared = servers.find((server) => server.name === 'shared');
    expect(shared?.state.status).toBe('failed');
    expect(shared?.state.error).toMatch(
      /^The MCP server "shared" was refused: the description of its tool "[^"]+" is \d+ bytes, over the 16 bytes limit for one description \(MANGO_MCP_MAX_DESCRIPTION_BYTES\); none of its tools are offered until its listing fits\.$/,
    );
    expect((await toolNames('ann')).some((name) => name.startsWith('mcp__shared__'))).toBe(false);
  });
});
