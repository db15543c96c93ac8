/**
 * A user's own MCP server whose URL names a literal loopback, private or link-local address (in any
 * spelling the URL parser accepts) or `localhost` is refused when it is added or changed, unless the
 * operator allows private addresses; one stored before is listed as failed with the same reason.
 */
import { describe, expect, test } from 'bun:test';
import { InMemoryUserMcpServerRepository } from '../../src/mcp-client/user-mcp-server-repository.ts';
import { McpServerError, UserMcpServerService } from '../../src/mcp-client/user-mcp-server-service.ts';

const REFUSED_HOSTS = [
  '127.0.0.1',
  '127.1.2.3',
  '[::1]',
  '10.0.0.1',
  '169.254.169.254',
  '0.0.0.0',
  '0',
  '[::]',
  '2130706433',
  '0x7f000001',
  '017700000001',
  '0177.0.0.1',
  '127.0.0.1.',
  '[::ffff:7f00:1]',
  '[::ffff:127.0.0.1]',
  '[64:ff9b::7f00:1]',
  'localhost',
];

function service(allowPrivate: boolean, repository = new InMemoryUserMcpServerRepository()) {
  return new UserMcpServerService({
    repository,
    cipher: undefined,
    operatorNames: () => [],
    now: () => 0,
    allowPrivate,
  });
}

async function refusalOf(action: Promise<unknown>): Promise<{ code: string; message: string } | 'accepted'> {
  try {
    await action;
    return 'accepted';
  } catch (error) {
    if (!(error instanceof McpServerError)) throw error;
    return { code: error.code, message: error.message };
  }
}

describe('literal addresses in a user MCP server URL', () => {
  test.each(REFUSED_HOSTS)('http://%s:8080/mcp is refused when added, saying why', async (host) => {
    const url = `http://${host}:8080/mcp`;
    const refusal = await refusalOf(service(false).create('ann', { name: 'mine', url }));
    expect(refusal).not.toBe('accepted');
    if (refusal === 'accepted') return;
    expect(refusal.code).toBe('invalid_request');
    expect(refusal.message).toStartWith(`url ${JSON.stringify(url)} names a`);
    expect(refusal.message).toEndWith(
      'external MCP servers may not reach loopback, link-local or private addresses unless the operator sets MANGO_MCP_ALLOW_PRIVATE=1.',
    );
  });

  test('the reason names the kind of address', async () => {
    const reasons = await Promise.all(
      ['127.1.2.3', '10.0.0.1', '169.254.169.254', 'localhost'].map(async (host) => {
        const refusal = await refusalOf(
          service(false).create('ann', { name: 'mine', url: `http://${host}/mcp` }),
        );
        return refusal === 'accepted' ? refusal : refusal.message.split(' names ')[1]?.split(':')[0];
      }),
    );
    expect(reasons).toEqual([
      'a loopback address',
      'a private address',
      'a link-local address',
      'a loopback name (localhost)',
    ]);
  });

  test('a change of URL is refused the same way; public addresses and names pass', async () => {
    const users = service(false);
    await users.create('ann', { name: 'mine', url: 'https://93.184.216.34/mcp' });
    await users.create('ann', { name: 'named', url: 'https://mcp.example.com/mcp' });
    const refusal = await refusalOf(users.update('ann', 'mine', { url: 'http://[::1]/mcp' }));
    expect(refusal === 'accepted' ? refusal : refusal.code).toBe('invalid_request');
  });

  test('with MANGO_MCP_ALLOW_PRIVATE the literals are accepted', async () => {
    const users = service(true);
    for (const [index, host] of REFUSED_HOSTS.entries()) {
      expect(await refusalOf(users.create('ann', { name: `s${index}`, url: `http://${host}/mcp` }))).toBe(
        'accepted',
      );
    }
  });

  test('a row stored before is listed as failed with the reason', async () => {
    const repository = new InMemoryUserMcpServerRepository();
    await service(true, repository).create('ann', { name: 'old', url: 'http://127.0.0.1:9/mcp' });
    const users = service(false, repository);
    users.attach({
      serverStates: async () => ({
        servers: [
          { name: 'old', origin: 'user', transport: 'http', status: 'connected', toolCount: 0, tools: [] },
        ],
        problems: [],
      }),
      forgetUserServer: async () => {},
    });
    const { servers } = await users.list('ann');
    expect(servers).toEqual([
      {
        name: 'old',
        origin: 'user',
        transport: 'http',
        url: 'http://127.0.0.1:9/mcp',
        headerNames: [],
        state: {
          status: 'failed',
          error:
            'url "http://127.0.0.1:9/mcp" names a loopback address: external MCP servers may not reach loopback, link-local or private addresses unless the operator sets MANGO_MCP_ALLOW_PRIVATE=1.',
        },
      },
    ]);
  });
});
