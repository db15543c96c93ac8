import { afterAll, beforeAll, expect, test } from 'bun:test';
import Ajv from 'ajv';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

let api: TestApp;
let token: string;
beforeAll(async () => {
  api = await createTestApp('sqlite');
  token = (await api.deps.users.create('alice')).token;
});
afterAll(() => api.dispose());

type Document = {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { securitySchemes: Record<string, unknown> };
};

test('GET /api/openapi.json documents both routes from their TypeBox schemas', async () => {
  const { status, json } = await api.request('GET', '/api/openapi.json', { token });
  expect(status).toBe(200);
  const document = json as Document;
  expect(document.openapi).toBe('3.1.0');
  expect(document.components.securitySchemes).toEqual({ bearerAuth: { type: 'http', scheme: 'bearer' } });
  const list = document.paths['/api/settings/tools']!.get!;
  const update = document.paths['/api/settings/tools/{toolName}']!.put!;
  expect(list.operationId).toBe('listToolSettings');
  expect(list.security).toEqual([{ bearerAuth: [] }]);
  expect(update.parameters).toEqual([
    { name: 'toolName', in: 'path', required: true, schema: { type: 'string', maxLength: 1024 } },
  ]);
  expect(update.requestBody).toMatchObject({
    content: {
      'application/json': {
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: { enabled: { type: 'boolean' }, parameters: { type: 'object' } },
        },
      },
    },
  });
  expect(Object.keys(update.responses as object).sort()).toEqual(['200', '400', '401', '404', '413', '422']);
});

test('real responses validate against the documented schemas', async () => {
  const document = (await api.request('GET', '/api/openapi.json', { token })).json as Document;
  const ajv = new Ajv({ strict: false });
  const schemaOf = (path: string, method: string, status: string) =>
    (
      document.paths[path]![method]!.responses as Record<
        string,
        { content: Record<string, { schema: object }> }
      >
    )[status]!.content['application/json']!.schema;
  const listed = await api.request('GET', '/api/settings/tools', { token });
  expect(ajv.validate(schemaOf('/api/settings/tools', 'get', '200'), listed.json)).toBe(true);
  const updated = await api.request('PUT', '/api/settings/tools/tunable', { token, body: { enabled: true } });
  expect(ajv.validate(schemaOf('/api/settings/tools/{toolName}', 'put', '200'), updated.json)).toBe(true);
  const refused = await api.request('PUT', '/api/settings/tools/locked', { token, body: { enabled: false } });
  expect(ajv.validate(schemaOf('/api/settings/tools/{toolName}', 'put', '422'), refused.json)).toBe(true);
});

test('the approval route is documented: its path parameters, body and answers', async () => {
  const document = (await api.request('GET', '/api/openapi.json', { token })).json as Document;
  const answer = document.paths['/api/chats/{id}/approvals/{callId}']!.post!;
  expect(answer.operationId).toBe('answerApproval');
  expect(
    (answer.parameters as { name: string; in: string }[]).map(({ name, in: where }) => [name, where]),
  ).toEqual([
    ['id', 'path'],
    ['callId', 'path'],
  ]);
  expect(answer.requestBody).toMatchObject({
    content: {
      'application/json': {
        schema: {
          type: 'object',
          additionalProperties: false,
          required: ['decision'],
          properties: {
            decision: { anyOf: [{ const: 'approve' }, { const: 'deny' }] },
            reason: { type: 'string' },
            remember: { type: 'boolean' },
            rememberPrefix: { type: 'string' },
          },
        },
      },
    },
  });
  expect(Object.keys(answer.responses as object).sort()).toEqual([
    '200',
    '400',
    '401',
    '404',
    '409',
    '413',
    '422',
  ]);
  const current = document.paths['/api/chats/{id}/turns/current']!.get!;
  const record = (current.responses as Record<string, { content: Record<string, { schema: unknown }> }>)[
    '200'
  ]!.content['application/json']!.schema;
  expect(JSON.stringify(record)).toContain('"expiresAt"');
});

test("a turn past the user's limit is documented: 429 with the error body and Retry-After", async () => {
  const document = (await api.request('GET', '/api/openapi.json', { token })).json as Document;
  const responses = document.paths['/api/chats/{id}/turns']!.post!.responses as Record<string, object>;
  expect(Object.keys(responses).sort()).toEqual([
    '200',
    '400',
    '401',
    '404',
    '409',
    '413',
    '422',
    '429',
    '503',
  ]);
  expect(responses['429']).toEqual({
    description:
      'too_many_turns: the user already runs MANGO_USER_MAX_TURNS turns at once (any chat, any instance); nothing was stored and the chat is not busy',
    // The same JSON error body as every other refusal of the route.
    content: (responses['409'] as { content: unknown }).content,
    headers: {
      'Retry-After': {
        description: 'Seconds to wait before sending the message again (always 5)',
        schema: { type: 'integer', minimum: 1 },
      },
    },
  });
});

test('the document states what the routes do: public health, no web pages, bodiless 204, event streams', async () => {
  const document = (await api.request('GET', '/api/openapi.json', { token })).json as Document;
  expect(document.paths['/api/health']!.get!.security).toEqual([]);
  expect(
    Object.keys(document.paths).filter((path) => !path.startsWith('/api/') && !path.startsWith('/mcp')),
  ).toEqual([]);
  expect(document.paths['/api/chats/{id}']!.delete!.responses).toMatchObject({
    204: { description: 'Done; no body' },
  });
  expect((document.paths['/api/chats/{id}']!.delete!.responses as Record<string, object>)['204']).toEqual({
    description: 'Done; no body',
  });
  for (const [path, method] of [
    ['/api/chats/{id}/turns', 'post'],
    ['/api/chats/{id}/turns/current/events', 'get'],
  ] as const) {
    const ok = (document.paths[path]![method]!.responses as Record<string, { content?: object }>)['200'];
    expect(Object.keys(ok?.content ?? {})).toEqual(['text/event-stream']);
  }
});
