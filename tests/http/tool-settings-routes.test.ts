import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ToolError } from '../../src/tools/errors.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { BACKENDS } from '../helpers/test-database.ts';

const TUNABLE_DEFAULTS = {
  timeoutSeconds: 30,
  ratio: 0.5,
  verbose: false,
  label: 'x',
  quality: 'medium',
  names: [],
  allowedPaths: [],
  // The settings every tool gets; a test tool runs without asking.
  approval: 'never',
  approvalTimeoutSeconds: 600,
};

describe.each(BACKENDS)('tool settings API on %s', (backend) => {
  let api: TestApp;
  let alice: string;
  let bob: string;
  beforeAll(async () => {
    api = await createTestApp(backend);
    alice = (await api.deps.users.create('alice')).token;
    bob = (await api.deps.users.create('bob')).token;
  });
  afterAll(() => api.dispose());

  test('GET lists every tool with effective settings and descriptors (200)', async () => {
    const { status, json, contentType } = await api.request('GET', '/api/settings/tools', { token: alice });
    expect(status).toBe(200);
    expect(contentType).toContain('application/json');
    const tools = (json as { tools: Record<string, unknown>[] }).tools;
    expect(tools.map((tool) => tool.name)).toEqual(['tunable', 'locked']);
    expect(tools[0]).toEqual({
      name: 'tunable',
      title: 'Tunable',
      description: 'test',
      category: 'system',
      enabled: false,
      canDisable: true,
      available: true,
      // It declares the cautious traits (except that its calls run without asking).
      confirmBeforeEnable: true,
      readOnly: false,
      resultView: 'json',
      parameters: TUNABLE_DEFAULTS,
      parameterDescriptors: expect.any(Array),
    });
    const descriptors = tools[0]!.parameterDescriptors as Record<string, unknown>[];
    expect(descriptors.map((descriptor) => descriptor.name)).toEqual([
      'timeoutSeconds',
      'ratio',
      'verbose',
      'label',
      'quality',
      'names',
      'allowedPaths',
      'approval',
      'approvalTimeoutSeconds',
    ]);
    expect(descriptors.slice(-2)).toEqual([
      {
        name: 'approval',
        label: 'Ask before each call',
        description:
          'always: every call in a chat waits for your approval before it runs (unless an auto-approve rule of this tool matches), and MCP clients are told to confirm it; never: calls run at once.',
        type: 'select',
        allowedValues: ['never', 'always'],
        default: 'never',
      },
      {
        name: 'approvalTimeoutSeconds',
        label: 'Seconds to wait for approval',
        description: 'A call still waiting for your approval after this many seconds is denied.',
        type: 'integer',
        min: 10,
        max: 3600,
        default: 600,
      },
    ]);
    expect(tools[1]).toMatchObject({ name: 'locked', enabled: true, canDisable: false });
  });

  test('PUT merges defaults < saved < update, returns the descriptor, and GET shows it (200)', async () => {
    const first = await api.request('PUT', '/api/settings/tools/tunable', {
      token: alice,
      body: { enabled: true, parameters: { timeoutSeconds: 120 } },
    });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({
      name: 'tunable',
      enabled: true,
      parameters: { ...TUNABLE_DEFAULTS, timeoutSeconds: 120 },
    });
    const second = await api.request('PUT', '/api/settings/tools/tunable', {
      token: alice,
      body: { parameters: { quality: 'high', allowedPaths: [{ path: '/srv/ü', enabled: true }] } },
    });
    const expected = {
      ...TUNABLE_DEFAULTS,
      timeoutSeconds: 120,
      quality: 'high',
      allowedPaths: [{ path: '/srv/ü', enabled: true }],
    };
    expect(second.json).toMatchObject({ enabled: true, parameters: expected });
    const listed = await api.request('GET', '/api/settings/tools', { token: alice });
    expect((listed.json as { tools: unknown[] }).tools[0]).toMatchObject({
      enabled: true,
      parameters: expected,
    });
    // Only the user's choices are stored, not the defaults.
    expect(
      await api.deps.toolSettingsRepository.get((await api.deps.users.findByName('alice'))!.id, 'tunable'),
    ).toEqual({
      enabled: true,
      parameters: { timeoutSeconds: 120, quality: 'high', allowedPaths: [{ path: '/srv/ü', enabled: true }] },
    });
  });

  test('an empty body changes nothing and returns the descriptor (200)', async () => {
    const { status, json } = await api.request('PUT', '/api/settings/tools/locked', { token: bob, body: {} });
    expect(status).toBe(200);
    expect(json).toMatchObject({ name: 'locked', enabled: true });
  });

  test('one user sees and changes nothing of another', async () => {
    const bobs = await api.request('GET', '/api/settings/tools', { token: bob });
    expect((bobs.json as { tools: unknown[] }).tools[0]).toMatchObject({
      enabled: false,
      parameters: TUNABLE_DEFAULTS,
    });
    await api.request('PUT', '/api/settings/tools/tunable', {
      token: bob,
      body: { parameters: { label: 'bob' } },
    });
    const alices = await api.request('GET', '/api/settings/tools', { token: alice });
    expect((alices.json as { tools: { parameters: { label: string } }[] }).tools[0]!.parameters.label).toBe(
      'x',
    );
  });

  const authCases: [string, Record<string, string>][] = [
    ['no Authorization header', {}],
    ['an unknown token', { authorization: 'Bearer mango_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }],
    ['another scheme', { authorization: 'Basic YWxpY2U6cGFzcw==' }],
    ['an empty bearer', { authorization: 'Bearer ' }],
  ];
  test.each(authCases)('401 JSON for %s on every /api route', async (_label, headers) => {
    for (const [method, path] of [
      ['GET', '/api/settings/tools'],
      ['PUT', '/api/settings/tools/tunable'],
      ['PUT', '/api/settings/tools/nope'],
      ['GET', '/api/openapi.json'],
      ['GET', '/api/anything'],
    ] as const) {
      const { status, json } = await api.request(method, path, {
        headers,
        body: method === 'PUT' ? '{bad' : undefined,
      });
      expect(status).toBe(401);
      expect(json).toMatchObject({ code: 'unauthorized', error: expect.any(String) });
    }
  });

  test('a revoked token gets 401', async () => {
    const { token } = await api.deps.users.create('mallory');
    expect((await api.request('GET', '/api/settings/tools', { token })).status).toBe(200);
    await api.deps.users.revoke('mallory');
    expect((await api.request('GET', '/api/settings/tools', { token })).status).toBe(401);
  });

  const badRequests: [string, string, unknown, number, string][] = [
    ['malformed JSON', 'tunable', '{"enabled": tru', 400, 'malformed_json'],
    ['an empty body', 'tunable', '', 400, 'malformed_json'],
    [
      'JSON nested too deep',
      'tunable',
      `{"parameters":{"names":${'['.repeat(40)}${']'.repeat(40)}}}`,
      400,
      'malformed_json',
    ],
    ['an unknown body key', 'tunable', { enabled: true, color: 'red' }, 400, 'invalid_request'],
    ['enabled of the wrong type', 'tunable', { enabled: 'yes' }, 400, 'invalid_request'],
    ['parameters that are not an object', 'tunable', { parameters: [1] }, 400, 'invalid_request'],
    ['a JSON array body', 'tunable', [], 400, 'invalid_request'],
    ['a JSON null body', 'tunable', 'null', 400, 'invalid_request'],
    ['an unknown tool', 'no_such_tool', {}, 404, 'unknown_tool'],
    ['a unicode tool name', encodeURIComponent('ツール🔧'), {}, 404, 'unknown_tool'],
    ['a broken percent escape', '%E0%A4%A', {}, 400, 'invalid_request'],
    ['an unknown parameter', 'tunable', { parameters: { nope: 1 } }, 422, 'unknown_parameter'],
    [
      'a parameter of the wrong type',
      'tunable',
      { parameters: { timeoutSeconds: '60' } },
      422,
      'invalid_type',
    ],
    ['a parameter out of range', 'tunable', { parameters: { timeoutSeconds: 601 } }, 422, 'out_of_range'],
    ['a value not allowed', 'tunable', { parameters: { quality: 'ultra' } }, 422, 'not_allowed_value'],
    ['disabling a tool that cannot be disabled', 'locked', { enabled: false }, 422, 'cannot_disable'],
  ];
  test.each(badRequests)(
    '%s (tool %s, body %j) → %d %s, JSON error, nothing stored',
    async (_label, tool, body, status, code) => {
      const before = await api.request('GET', '/api/settings/tools', { token: alice });
      const response = await api.request('PUT', `/api/settings/tools/${tool}`, { token: alice, body });
      expect(response.status).toBe(status);
      expect(response.json).toMatchObject({ code, error: expect.any(String) });
      expect((await api.request('GET', '/api/settings/tools', { token: alice })).json).toEqual(before.json);
    },
  );

  test('422 names the parameter and the rule', async () => {
    const { json } = await api.request('PUT', '/api/settings/tools/tunable', {
      token: alice,
      body: { parameters: { timeoutSeconds: 601 } },
    });
    expect(json).toEqual({
      error: 'Tool "tunable" setting "Timeout" must be at most 600, got 601.',
      code: 'out_of_range',
      parameter: 'timeoutSeconds',
    });
    const locked = await api.request('PUT', '/api/settings/tools/locked', {
      token: alice,
      body: { enabled: false },
    });
    expect(locked.json).toEqual({
      error: 'Tool "locked" cannot be disabled.',
      code: 'cannot_disable',
      parameter: 'enabled',
    });
  });

  test('a body over the size limit → 413 before it is parsed', async () => {
    const { status, json } = await api.request('PUT', '/api/settings/tools/tunable', {
      token: alice,
      body: JSON.stringify({ parameters: { label: 'x'.repeat(api.handle.config.maxRequestBodyBytes) } }),
      headers: { 'content-length': String(api.handle.config.maxRequestBodyBytes + 20) },
    });
    expect(status).toBe(413);
    expect(json).toMatchObject({ code: 'payload_too_large' });
  });

  test('a body over the size limit without a Content-Length → 413 too', async () => {
    const body = new Blob([
      JSON.stringify({ parameters: { label: 'x'.repeat(api.handle.config.maxRequestBodyBytes) } }),
    ]);
    const response = await api.app.handle(
      new Request('http://localhost/api/settings/tools/tunable', {
        method: 'PUT',
        headers: { authorization: `Bearer ${alice}` },
        body: body.stream(),
      }),
    );
    expect(response.status).toBe(413);
  });

  test('unknown routes → 404 JSON', async () => {
    expect(await api.request('GET', '/nowhere')).toMatchObject({ status: 404, json: { code: 'not_found' } });
    expect(await api.request('DELETE', '/api/settings/tools', { token: alice })).toMatchObject({
      status: 404,
      json: { code: 'not_found' },
    });
  });

  test('a server fault is a 500 JSON without details, logged', async () => {
    const broken = await createTestApp(backend);
    const { token } = await broken.deps.users.create('x');
    broken.deps.toolSettings.list = async () => {
      throw new Error('secret detail');
    };
    const response = await broken.request('GET', '/api/settings/tools', { token });
    expect(response).toMatchObject({
      status: 500,
      json: { code: 'internal_error', error: 'Internal server error.' },
    });
    expect(JSON.stringify(response.json)).not.toContain('secret');
    expect(broken.logged.join('\n')).toContain('secret detail');
    broken.deps.toolSettings.list = async () => {
      throw new ToolError('execution_error', 'tool fault');
    };
    expect((await broken.request('GET', '/api/settings/tools', { token })).status).toBe(500);
    await broken.dispose();
  });

  test('settings persist across a restart', async () => {
    const before = await api.request('GET', '/api/settings/tools', { token: alice });
    await api.restart();
    const after = await api.request('GET', '/api/settings/tools', { token: alice });
    expect(after.status).toBe(200);
    expect(after.json).toEqual(before.json);
    expect((after.json as { tools: { enabled: boolean }[] }).tools[0]!.enabled).toBe(true);
  });

  test('settings changes are announced to subscribers after a successful PUT only', async () => {
    const aliceId = (await api.deps.users.findByName('alice'))!.id;
    const seen: string[] = [];
    const unsubscribe = api.deps.events.subscribe(aliceId, (_user, tool) => seen.push(tool));
    await api.request('PUT', '/api/settings/tools/tunable', {
      token: alice,
      body: { parameters: { ratio: 0.25 } },
    });
    await api.request('PUT', '/api/settings/tools/tunable', {
      token: alice,
      body: { parameters: { ratio: 2 } },
    });
    unsubscribe();
    expect(seen).toEqual(['tunable']);
  });
});
