/**
 * A body that does not match a route's schema is answered 400 `invalid_request` with what was wrong:
 * where, what was expected and what was received (a union of literals lists its values, a union of types its types). A full
 * workspace is 507 `quota_exceeded`, and not logged as a fault.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mapErrorToResponse } from '../../src/http/http-errors.ts';
import { ToolQuotaExceededError } from '../../src/tools/errors.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

describe('request body validation messages', () => {
  let api: TestApp;
  let token: string;
  beforeAll(async () => {
    api = await createTestApp('sqlite');
    token = (await api.deps.users.create('vera')).token;
  });
  afterAll(async () => {
    await api.dispose();
  });

  test.each([
    [
      'a value outside a union of literals',
      'POST',
      '/api/chats/some-chat/approvals/some-call',
      { decision: 'maybe' },
      'Invalid request body: /decision must be one of "approve", "deny", got "maybe".',
    ],
    [
      'a value of the wrong type',
      'PUT',
      '/api/settings/tools/tunable',
      { enabled: 'yes' },
      'Invalid request body: /enabled Expected boolean, got "yes".',
    ],
    [
      'a value no member of a union of types takes',
      'PATCH',
      '/api/chats/some-chat',
      { systemPrompt: 42 },
      'Invalid request body: /systemPrompt Expected string or null, got 42.',
    ],
    [
      'a missing property',
      'POST',
      '/api/chats/some-chat/approvals/some-call',
      {},
      'Invalid request body: /decision Expected required property.',
    ],
  ])('%s', async (_name, method, path, body, message) => {
    const response = await api.request(method, path, { token, body });
    expect(response.status).toBe(400);
    expect(response.json).toEqual({ error: message, code: 'invalid_request' });
  });
});

describe('a full workspace', () => {
  test('is 507 quota_exceeded with its message, and no fault of the server to log', async () => {
    const logged: string[] = [];
    const message =
      'The workspace is full: 4.9 MiB of 5 MiB used; remove files to make room. Nothing was written.';
    const response = mapErrorToResponse(new ToolQuotaExceededError(message), 'UNKNOWN', (line) =>
      logged.push(line),
    );
    expect(response.status).toBe(507);
    expect(await response.json()).toEqual({ error: message, code: 'quota_exceeded' });
    expect(logged).toEqual([]);
  });
});
