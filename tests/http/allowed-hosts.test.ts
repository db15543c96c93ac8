/**
 * The DNS-rebinding guard of `/mcp`: the policy read from the environment, and the real server refusing
 * a foreign `Host` or `Origin` with 403 before authentication while loopback names, listed names and
 * requests without `Origin` open a session.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ConfigError } from '../../src/config.ts';
import { readAllowedHosts, refuseHostOrOrigin } from '../../src/http/allowed-hosts.ts';
import { type RunningServer, startServer } from '../../src/server/start-server.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

function request(host: string, origin?: string): Request {
  const headers: Record<string, string> = { host };
  if (origin !== undefined) headers.origin = origin;
  return new Request('http://localhost/mcp', { headers });
}

describe('readAllowedHosts / refuseHostOrOrigin', () => {
  const loopback = readAllowedHosts({}, '127.0.0.1');

  test('loopback names with any port are allowed; requests without Origin are judged on Host', () => {
    for (const host of ['localhost', 'localhost:3000', '127.0.0.1:1', '[::1]:8080', 'LOCALHOST']) {
      expect(refuseHostOrOrigin(request(host), loopback)).toBeUndefined();
    }
  });

  test('a foreign Host is refused with a hint for the binding', () => {
    expect(refuseHostOrOrigin(request('evil.example'), loopback)).toEqual({
      code: 'host_not_allowed',
      message:
        'Host "evil.example" is not allowed: this server answers loopback names (localhost, 127.0.0.1, [::1]) only.',
    });
    const exposed = readAllowedHosts({}, '0.0.0.0');
    expect(refuseHostOrOrigin(request('10.0.0.5:3000'), exposed)).toEqual({
      code: 'host_not_allowed',
      message: 'Host "10.0.0.5:3000" is not allowed: list the names clients use in MANGO_ALLOWED_HOSTS.',
    });
  });

  test('foreign, null and malformed origins are refused; loopback origins pass', () => {
    for (const origin of ['http://evil.example', 'null', 'file://', 'http://localhost.evil.example']) {
      expect(refuseHostOrOrigin(request('localhost:3000', origin), loopback)).toEqual({
        code: 'origin_not_allowed',
        message: `Origin ${JSON.stringify(origin)} is not allowed: list trusted web origins in MANGO_ALLOWED_ORIGINS.`,
      });
    }
    for (const origin of ['http://localhost:3000', 'https://127.0.0.1', 'http://[::1]:9']) {
      expect(refuseHostOrOrigin(request('localhost:3000', origin), loopback)).toBeUndefined();
    }
  });

  test('listed hosts (any port or one port) and origins are allowed', () => {
    const policy = readAllowedHosts(
      {
        MANGO_ALLOWED_HOSTS: ' mango.example.com , 10.0.0.5:3000',
        MANGO_ALLOWED_ORIGINS: 'https://chat.example.com',
      },
      '0.0.0.0',
    );
    expect(refuseHostOrOrigin(request('mango.example.com:443'), policy)).toBeUndefined();
    expect(refuseHostOrOrigin(request('10.0.0.5:3000'), policy)).toBeUndefined();
    expect(refuseHostOrOrigin(request('10.0.0.5:3001'), policy)?.code).toBe('host_not_allowed');
    expect(
      refuseHostOrOrigin(request('mango.example.com', 'https://chat.example.com'), policy),
    ).toBeUndefined();
    expect(refuseHostOrOrigin(request('mango.example.com', 'http://chat.example.com'), policy)?.code).toBe(
      'origin_not_allowed',
    );
  });

  test('malformed entries stop the server with the entry named', () => {
    expect(() => readAllowedHosts({ MANGO_ALLOWED_HOSTS: 'good.example, bad/host' }, '127.0.0.1')).toThrow(
      new ConfigError('MANGO_ALLOWED_HOSTS entries must be host names or name:port, got "bad/host".'),
    );
    for (const entry of ['chat.example.com', 'https://chat.example.com/path', 'ftp://chat.example.com']) {
      expect(() => readAllowedHosts({ MANGO_ALLOWED_ORIGINS: entry }, '127.0.0.1')).toThrow(
        new ConfigError(
          `MANGO_ALLOWED_ORIGINS entries must be origins like https://chat.example.com, got ${JSON.stringify(entry)}.`,
        ),
      );
    }
  });
});

describe('the real server refuses rebinding requests to /mcp', () => {
  let handle: TestDatabase;
  let server: RunningServer;
  let token = '';
  beforeAll(async () => {
    handle = await createTestDatabase('sqlite', { migrate: false });
    server = await startServer(handle.config, {
      print: () => {},
      env: { MANGO_ALLOWED_HOSTS: 'mango.example.com', MANGO_ALLOWED_ORIGINS: 'https://chat.example.com' },
    });
    token = (await server.deps.users.create('alice')).token;
  }, 30_000);
  afterAll(async () => {
    await server.stop();
    await handle.dispose();
  });

  async function initialize(headers: Record<string, string>, authorization = `Bearer ${token}`) {
    const response = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    });
    const sessionId = response.headers.get('mcp-session-id');
    const body = response.status === 200 ? undefined : await response.json();
    if (sessionId) {
      await fetch(`${server.url}/mcp`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}`, 'mcp-session-id': sessionId },
      });
    }
    return { status: response.status, opened: sessionId !== null, body };
  }

  test('Origin: http://evil.example gets 403 and opens no session, with or without a token', async () => {
    const expected = {
      status: 403,
      opened: false,
      body: {
        code: 'origin_not_allowed',
        error:
          'Origin "http://evil.example" is not allowed: list trusted web origins in MANGO_ALLOWED_ORIGINS.',
      },
    };
    expect(await initialize({ origin: 'http://evil.example' })).toEqual(expected);
    expect(await initialize({ origin: 'http://evil.example' }, '')).toEqual(expected);
    expect(server.deps.mcpSessions.size).toBe(0);
  });

  test('Host: evil.example gets 403', async () => {
    expect(await initialize({ host: 'evil.example', origin: 'http://evil.example' })).toEqual({
      status: 403,
      opened: false,
      body: {
        code: 'host_not_allowed',
        error:
          'Host "evil.example" is not allowed: this server answers loopback names (localhost, 127.0.0.1, [::1]) only.',
      },
    });
  });

  test('no Origin, a loopback Origin, a listed Host and a listed Origin open a session', async () => {
    const port = new URL(server.url).port;
    const cases: Record<string, string>[] = [
      {},
      { origin: `http://localhost:${port}` },
      { host: 'mango.example.com' },
      { host: 'mango.example.com', origin: 'https://chat.example.com' },
    ];
    for (const headers of cases) {
      expect(await initialize(headers)).toEqual({ status: 200, opened: true, body: undefined });
    }
  });

  test('the guard covers /mcp only: the API answers a foreign Origin as before', async () => {
    const response = await fetch(`${server.url}/api/settings/tools`, {
      headers: { authorization: `Bearer ${token}`, origin: 'http://evil.example' },
    });
    expect(response.status).toBe(200);
  });
});
