/**
 * A stdio server's `network` mode, with a real program in the real sandbox: `host` shares the server's
 * network (a loopback service is reachable), the default `none` does not (stdio-servers.test.ts).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { executeTool } from '../../src/tools/execution.ts';
import type { BubblewrapSandbox } from '../../src/tools/shell/sandbox/bubblewrap-sandbox.ts';
import { createTestSandbox, describeSandbox } from '../tools/shell/sandbox/sandbox-host.ts';
import { createExternalSetup, type ExternalSetup, probeServer } from './external-servers.ts';

describeSandbox('a stdio server with network "host"', () => {
  let sandbox: BubblewrapSandbox;
  let setup: ExternalSetup;

  beforeAll(async () => {
    sandbox = createTestSandbox();
    setup = await createExternalSetup(sandbox, [{ ...probeServer(), network: 'host' }]);
  }, 60_000);
  afterAll(async () => {
    await setup.dispose();
    sandbox.dispose();
  });

  test('reaches a service on the host’s loopback', async () => {
    const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    try {
      const registry = await setup.source.registryFor('alice');
      const outcome = await executeTool(
        'mcp__probe__connect',
        { host: '127.0.0.1', port: listener.port },
        { userId: 'alice', reachable: setup.aliceReachable, dataDirectory: setup.dataDirectory },
        undefined,
        { registry },
      );
      expect(outcome).toEqual({ ok: true, result: { content: [{ type: 'text', text: 'connected' }] } });
    } finally {
      listener.stop(true);
    }
  });
});
