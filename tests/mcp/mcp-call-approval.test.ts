/**
 * Approvals over MCP with the SDK client on an in-memory transport: a tool whose effective `approval`
 * is `always` is listed as destructive (not read-only); with the `elicitation` capability declared, a
 * call that needs approval is asked about first (accept runs it, decline and cancel give `denied` and
 * run nothing; a tool that does not ask, and a call that fails validation, are not asked about); without
 * it the call runs and the client confirms by itself.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpToolServer } from '../../src/mcp/mcp-tool-server.ts';
import { InMemoryToolSettingsRepository } from '../../src/settings/tool-settings-repository.ts';
import { computeReachableSet } from '../../src/tools/access/reachable-set.ts';
import { getCurrentDatetimeTool } from '../../src/tools/builtin/get-current-datetime.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { toolAccessContext } from '../../src/workspaces/tool-access.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import { callResultData } from '../helpers/mcp-test-tools.ts';

const access = toolAccessContext(
  computeReachableSet({
    workspaces: [{ path: '/srv/project', access: 'read-write', kind: 'granted' }],
    workingDirectory: '/srv/project',
    homeDirectory: '/srv/project',
    confined: true,
    protectedPaths: ['/proc'],
  }),
);

const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
});

function setUp() {
  let runs = 0;
  const registry = new ToolRegistry();
  registry.register(getCurrentDatetimeTool);
  // No traits: the cautious defaults, so every call asks.
  registry.register(
    makeTool({
      name: 'risky',
      traits: undefined,
      execute: async () => {
        runs += 1;
        return { ran: true };
      },
    }),
  );
  return { registry, settings: new InMemoryToolSettingsRepository(), runs: () => runs };
}

async function connect(
  parts: ReturnType<typeof setUp>,
  answer?: (message: string) => ElicitResult['action'],
): Promise<{ client: Client; asked: string[] }> {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const server = createMcpToolServer({
    userId: 'alice',
    log: () => {},
    resolveAccess: async () => access,
    registry: parts.registry,
    toolSettings: parts.settings,
  });
  await server.connect(serverTransport);
  const client = new Client(
    { name: 'test', version: '1' },
    answer === undefined ? {} : { capabilities: { elicitation: {} } },
  );
  const asked: string[] = [];
  if (answer !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(String(request.params.message));
      return { action: answer(String(request.params.message)) };
    });
  }
  await client.connect(clientTransport);
  clients.push(client);
  return { client, asked };
}

describe('approvals over MCP', () => {
  test('a tool that asks before each call is listed as destructive and not read-only', async () => {
    const parts = setUp();
    const { client } = await connect(parts);
    const hints = async () =>
      Object.fromEntries((await client.listTools()).tools.map((tool) => [tool.name, tool.annotations]));
    expect(await hints()).toEqual({
      get_current_datetime: {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
      risky: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    });
    await parts.settings.put('alice', 'get_current_datetime', { parameters: { approval: 'always' } });
    expect((await hints()).get_current_datetime).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: false,
    });
  });

  test('with elicitation declared: accept runs the call, decline and cancel deny it', async () => {
    const parts = setUp();
    const answers: ElicitResult['action'][] = ['accept', 'decline', 'cancel'];
    const { client, asked } = await connect(parts, () => answers.shift()!);
    const accepted = await client.callTool({ name: 'risky', arguments: { value: 'a' } });
    expect(accepted.isError).toBeFalsy();
    expect(parts.runs()).toBe(1);
    expect(asked).toEqual([
      'Run risky: {"value":"a"}? risky asks before every call ("approval" is "always").',
    ]);

    const declined = await client.callTool({ name: 'risky', arguments: { value: 'b' } });
    expect(declined.isError).toBe(true);
    expect(callResultData(declined).error).toEqual({
      classification: 'denied',
      message: 'The user declined the approval question, so the call was not run.',
    });
    const dismissed = await client.callTool({ name: 'risky', arguments: { value: 'c' } });
    expect(callResultData(dismissed).error).toEqual({
      classification: 'denied',
      message: 'The user dismissed the approval question, so the call was not run.',
    });
    expect(parts.runs()).toBe(1);

    // A tool that runs without asking is not asked about; nor is a call that fails validation.
    await client.callTool({ name: 'get_current_datetime', arguments: {} });
    const invalid = await client.callTool({ name: 'risky', arguments: { value: 3 } });
    expect(callResultData(invalid).error).toMatchObject({ classification: 'validation_failed' });
    expect(asked).toHaveLength(3);
  });

  test('without elicitation the call runs: the client confirms by itself', async () => {
    const parts = setUp();
    const { client } = await connect(parts);
    const result = await client.callTool({ name: 'risky', arguments: {} });
    expect(result.isError).toBeFalsy();
    expect(parts.runs()).toBe(1);
  });
});
