/**
 * A stdio server's `network` mode, with a real program in the real sandbox. The default `none` gives
 * it no network at all: neither the host's own network address nor, on loopback, a Mango API server
 * or the PostgreSQL server, though the host itself reaches all three. `host` shares the server's
 * network: the same loopback services are reachable.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { executeTool } from '../../src/tools/execution.ts';
import type { ToolExecutionResult } from '../../src/tools/types.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';
import { testPostgresUrl } from '../helpers/test-postgres-server.ts';
import { createTestSandbox, describeSandbox } from '../sandbox/sandbox-host.ts';
import { createExternalSetup, type ExternalSetup, probeServer } from './external-servers.ts';

/** The run's test PostgreSQL server, a loopback service the sandbox must not reach (set in beforeAll). */
let postgresHost = '';
let postgresPort = 0;

/** Whether this process (outside any sandbox) can open a TCP connection to host:port. */
function hostReaches(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The host's first non-loopback IPv4 address, where a service listening on all addresses answers. */
function externalAddress(): string | undefined {
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) if (entry.family === 'IPv4' && !entry.internal) return entry.address;
  }
  return undefined;
}

async function probeConnect(setup: ExternalSetup, host: string, port: number): Promise<ToolExecutionResult> {
  const registry = await setup.source.registryFor('alice');
  return executeTool(
    'mcp__probe__connect',
    { host, port },
    { userId: 'alice', reachable: setup.aliceReachable, dataDirectory: setup.dataDirectory },
    undefined,
    { registry },
  );
}

const said = (text: string): ToolExecutionResult => ({
  ok: true,
  result: { content: [{ type: 'text', text }] },
});

/** A Mango API server on loopback, over real HTTP. */
async function startMangoApi(): Promise<{ app: TestApp; server: ReturnType<typeof Bun.serve> }> {
  const app = await createTestApp('sqlite');
  const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => app.app.handle(request) });
  return { app, server };
}

describeSandbox('stdio servers and the network', () => {
  let sandbox: BubblewrapSandbox;
  let mango: Awaited<ReturnType<typeof startMangoApi>>;

  beforeAll(async () => {
    sandbox = createTestSandbox();
    mango = await startMangoApi();
    const postgres = new URL(await testPostgresUrl());
    postgresHost = postgres.hostname;
    postgresPort = Number(postgres.port || 5432);
  }, 60_000);
  afterAll(async () => {
    mango.server.stop(true);
    await mango.app.dispose();
    sandbox.dispose();
  });

  describe('network "none" (the default)', () => {
    let setup: ExternalSetup;
    beforeAll(async () => {
      setup = await createExternalSetup(sandbox, [probeServer()]);
    }, 60_000);
    afterAll(() => setup.dispose());

    test('cannot reach Mango’s API on loopback, which the host reaches', async () => {
      const port = mango.server.port ?? 0;
      const health = await fetch(`http://127.0.0.1:${port}/api/health`);
      expect(health.status).toBe(200);
      expect(await probeConnect(setup, '127.0.0.1', port)).toEqual(said('refused: ECONNREFUSED'));
    }, 30_000);

    test('cannot reach PostgreSQL on loopback, which the host reaches', async () => {
      expect(await hostReaches(postgresHost, postgresPort)).toBe(true);
      expect(await probeConnect(setup, postgresHost, postgresPort)).toEqual(said('refused: ECONNREFUSED'));
    });

    // A host with loopback only (a container without network, `unshare -n`) has no address to withhold.
    test.skipIf(externalAddress() === undefined)(
      'cannot reach the network: the host’s own address is unreachable',
      async () => {
        const address = externalAddress();
        if (address === undefined) throw new Error('this host has no non-loopback IPv4 address to test with');
        const listener = Bun.listen({ hostname: '0.0.0.0', port: 0, socket: { data() {} } });
        try {
          expect(await hostReaches(address, listener.port)).toBe(true);
          expect(await probeConnect(setup, address, listener.port)).toEqual(said('refused: ENETUNREACH'));
        } finally {
          listener.stop(true);
        }
      },
    );
  });

  describe('network "host"', () => {
    let setup: ExternalSetup;
    beforeAll(async () => {
      setup = await createExternalSetup(sandbox, [{ ...probeServer(), network: 'host' }]);
    }, 60_000);
    afterAll(() => setup.dispose());

    test('reaches a service on the host’s loopback', async () => {
      const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
      try {
        expect(await probeConnect(setup, '127.0.0.1', listener.port)).toEqual(said('connected'));
      } finally {
        listener.stop(true);
      }
    }, 30_000);

    test('reaches Mango’s API and PostgreSQL on loopback (what "none" withholds)', async () => {
      expect(await probeConnect(setup, '127.0.0.1', mango.server.port ?? 0)).toEqual(said('connected'));
      expect(await probeConnect(setup, postgresHost, postgresPort)).toEqual(said('connected'));
    });
  });
});
