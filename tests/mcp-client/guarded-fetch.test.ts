import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { type AddressInfo, createServer } from 'node:net';
import { createGuardedFetch, SELF_MARK_HEADER } from '../../src/mcp-client/guarded-fetch.ts';
import { judgeAddress } from '../../src/mcp-client/judge-address.ts';
import { outcomeOf } from './fetch-outcome.ts';

describe('the guarded fetch, with private addresses not allowed', () => {
  let loopback: ReturnType<typeof Bun.serve>;
  let loopbackV6: ReturnType<typeof Bun.serve> | undefined;
  let requests = 0;
  let port: number;

  beforeAll(() => {
    loopback = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () => {
        requests += 1;
        return new Response('loopback secret');
      },
    });
    port = loopback.port ?? 0;
    try {
      loopbackV6 = Bun.serve({ hostname: '::1', port, fetch: () => new Response('v6 secret') });
    } catch {
      loopbackV6 = undefined;
    }
  });
  afterAll(() => {
    loopback.stop(true);
    loopbackV6?.stop(true);
  });

  const guarded = createGuardedFetch({ allowPrivate: false });

  test.each([
    ['127.0.0.1', () => `http://127.0.0.1:${port}/mcp`, '127.0.0.1, a loopback address'],
    ['[::1]', () => `http://[::1]:${port}/mcp`, '::1, a loopback address'],
    ['10.0.0.1', () => 'http://10.0.0.1/mcp', '10.0.0.1, a private address'],
    ['localhost', () => `http://localhost:${port}/mcp`, 'a loopback address'],
    ['0.0.0.0', () => `http://0.0.0.0:${port}/mcp`, '0.0.0.0, an unspecified ("this network") address'],
    ['decimal 2130706433', () => `http://2130706433:${port}/mcp`, '127.0.0.1, a loopback address'],
    ['short 127.1', () => `http://127.1:${port}/mcp`, '127.0.0.1, a loopback address'],
    ['hex 0x7f.0.0.1', () => `http://0x7f.0.0.1:${port}/mcp`, '127.0.0.1, a loopback address'],
    ['IPv4-mapped [::ffff:127.0.0.1]', () => `http://[::ffff:127.0.0.1]:${port}/mcp`, 'a loopback address'],
    ['link-local 169.254.169.254', () => 'http://169.254.169.254/latest/meta-data', 'a link-local address'],
    ['private 192.168.1.1', () => 'http://192.168.1.1/', '192.168.1.1, a private address'],
  ])('%s is refused before any request is sent', async (_name, url, reason) => {
    const before = requests;
    const outcome = await outcomeOf(guarded(url(), { method: 'POST', body: '{}' }));
    expect(outcome).toStartWith('permission_denied: Refused to connect to ');
    expect(outcome).toContain(reason);
    expect(outcome).toContain('MANGO_MCP_ALLOW_PRIVATE=1');
    expect(requests).toBe(before);
  });

  test('a redirect from an allowed address to loopback is refused at the hop', async () => {
    // 127.0.0.2 plays a public server here; the policy is otherwise the real one.
    const judge = (address: string) =>
      address === '127.0.0.2' ? { allowed: true as const } : judgeAddress(address);
    const redirector = Bun.serve({
      hostname: '127.0.0.2',
      port: 0,
      fetch: () => new Response(null, { status: 307, headers: { location: `http://127.0.0.1:${port}/mcp` } }),
    });
    try {
      const before = requests;
      const strict = createGuardedFetch({ allowPrivate: false, judge });
      const outcome = await outcomeOf(
        strict(`http://127.0.0.2:${redirector.port}/mcp`, { method: 'POST', body: '{}' }),
      );
      expect(outcome).toContain('permission_denied: Refused to connect to http://127.0.0.1:');
      expect(requests).toBe(before);
      // The same redirect with private addresses allowed is followed.
      const open = createGuardedFetch({ allowPrivate: true });
      expect(
        await outcomeOf(open(`http://127.0.0.2:${redirector.port}/mcp`, { method: 'POST', body: '{}' })),
      ).toBe('200 loopback secret');
      // `redirect: 'manual'` hands the 307 to the caller (the SDK then asks again, through this fetch).
      const manual = await strict(`http://127.0.0.2:${redirector.port}/mcp`, { redirect: 'manual' });
      expect(manual.status).toBe(307);
    } finally {
      redirector.stop(true);
    }
  });
});

describe('the guarded fetch, with private addresses allowed', () => {
  test('loopback is reached, and the response streams', async () => {
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async (request) =>
        new Response(`got ${request.method} ${await request.text()}`, { status: 201 }),
    });
    try {
      const open = createGuardedFetch({ allowPrivate: true });
      const response = await open(`http://127.0.0.1:${server.port}/x?y=1`, {
        method: 'POST',
        body: 'hello',
        headers: { 'content-type': 'text/plain' },
      });
      expect(response.status).toBe(201);
      expect(await response.text()).toBe('got POST hello');
    } finally {
      server.stop(true);
    }
  });

  test('an abort after the headers ends an event stream that never ends, and closes its socket', async () => {
    let serverSideClosed!: () => void;
    const closed = new Promise<void>((resolve) => {
      serverSideClosed = resolve;
    });
    // A GET event stream that stays open, as FastMCP's is: headers, one event, then nothing.
    const server = createServer((socket) => {
      socket.on('close', () => serverSideClosed());
      socket.once('data', () => {
        socket.write(
          'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n',
        );
        socket.write('d\r\ndata: hello\n\n\r\n');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const controller = new AbortController();
      const open = createGuardedFetch({ allowPrivate: true });
      const response = await open(`http://127.0.0.1:${port}/mcp`, {
        method: 'GET',
        signal: controller.signal,
      });
      const reader = (response.body as ReadableStream<Uint8Array>).getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: hello\n\n');
      const pending = reader.read();
      controller.abort(new Error('the caller is done'));
      expect(
        await pending.then(
          () => 'read on',
          (error: Error) => error.message,
        ),
      ).toBe('the caller is done');
      await closed;
    } finally {
      server.close();
    }
  });

  test('a Mango server’s own /mcp is refused', async () => {
    const mango = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () => new Response('{}', { headers: { [SELF_MARK_HEADER]: '1' } }),
    });
    try {
      const open = createGuardedFetch({ allowPrivate: true });
      expect(
        await outcomeOf(open(`http://127.0.0.1:${mango.port}/mcp`, { method: 'POST', body: '{}' })),
      ).toBe(
        `permission_denied: Refused http://127.0.0.1:${mango.port}: it is a Mango server's own /mcp endpoint, and Mango does not call itself as an external MCP server.`,
      );
    } finally {
      mango.stop(true);
    }
  });
});
