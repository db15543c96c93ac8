import { afterEach, describe, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { createMcpToolServer, type McpToolServerOptions } from '../../src/mcp/mcp-tool-server.ts';
import { ToolSettingsEvents } from '../../src/settings/tool-settings-events.ts';
import { InMemoryToolSettingsRepository } from '../../src/settings/tool-settings-repository.ts';
import { computeReachableSet } from '../../src/tools/access/reachable-set.ts';
import { CUT_MARKER_PATTERN } from '../../src/tools/output/cut-marker.ts';
import { DEFAULT_TOOL_OUTPUT_BUDGET_BYTES } from '../../src/tools/output/result-budget.ts';
import { toolAccessContext } from '../../src/workspaces/tool-access.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import { callResultData, createMcpTestRegistry } from '../helpers/mcp-test-tools.ts';

/** Counts live subscriptions, to show a closed session leaves none behind. */
class CountingToolSettingsEvents extends ToolSettingsEvents {
  active = 0;
  override subscribe(...args: Parameters<ToolSettingsEvents['subscribe']>): () => void {
    const unsubscribe = super.subscribe(...args);
    this.active += 1;
    return () => {
      this.active -= 1;
      unsubscribe();
    };
  }
}

const openClients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(openClients.splice(0).map((client) => client.close()));
});

/** A session confined to /srv/project (a reachable set as the workspaces layer computes it). */
const projectAccess = toolAccessContext(
  computeReachableSet({
    workspaces: [{ path: '/srv/project', access: 'read-write', kind: 'granted' }],
    workingDirectory: '/srv/project',
    homeDirectory: '/srv/project',
    confined: true,
    protectedPaths: ['/proc'],
  }),
);

async function connect(options: Partial<McpToolServerOptions> & Pick<McpToolServerOptions, 'toolSettings'>) {
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const server = createMcpToolServer({
    userId: 'alice',
    log: () => {},
    resolveAccess: async () => projectAccess,
    ...options,
  });
  await server.connect(serverTransport);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientTransport);
  openClients.push(client);
  return { client, server };
}

function structured(result: unknown): Record<string, unknown> {
  return callResultData(result);
}

describe('createMcpToolServer', () => {
  test('tools/list offers the enabled tools with their source JSON Schemas and titles', async () => {
    const { registry } = createMcpTestRegistry();
    const { client } = await connect({ toolSettings: new InMemoryToolSettingsRepository(), registry });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'get_current_datetime',
      'wait_for_abort',
      'session_probe',
      'report_progress',
    ]);
    const datetime = tools[0]!;
    expect(datetime.title).toBe(registry.get('get_current_datetime')!.settings.title);
    expect(datetime.inputSchema).toEqual(
      registry.get('get_current_datetime')!.definition.parameters as never,
    );
  });

  test('tools/list follows saved settings on every call, and a change sends list_changed', async () => {
    const { registry } = createMcpTestRegistry();
    const toolSettings = new InMemoryToolSettingsRepository();
    const toolSettingsEvents = new ToolSettingsEvents();
    const { client } = await connect({ toolSettings, toolSettingsEvents, registry });
    const changed = Promise.withResolvers<void>();
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changed.resolve());

    await toolSettings.put('alice', 'get_current_datetime', { enabled: false });
    await toolSettings.put('alice', 'off_by_default', { enabled: true });
    toolSettingsEvents.emit('alice', 'get_current_datetime');
    await changed.promise;

    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).not.toContain('get_current_datetime');
    expect(names).toContain('off_by_default');
    const refused = await client.callTool({ name: 'get_current_datetime', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(structured(refused).error).toMatchObject({ classification: 'tool_disabled' });
  });

  test('with a poll, a change made by another process (no event) still sends list_changed', async () => {
    const { registry } = createMcpTestRegistry();
    const toolSettings = new InMemoryToolSettingsRepository();
    const { client } = await connect({ toolSettings, registry, settingsPollMilliseconds: 5 });
    const changed = Promise.withResolvers<void>();
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => changed.resolve());
    await client.listTools();
    await toolSettings.put('alice', 'report_progress', { enabled: false });
    await changed.promise;
    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('report_progress');
  });

  test('another user’s settings change sends nothing to this session', async () => {
    const { registry } = createMcpTestRegistry();
    const toolSettingsEvents = new ToolSettingsEvents();
    const { client } = await connect({
      toolSettings: new InMemoryToolSettingsRepository(),
      toolSettingsEvents,
      registry,
    });
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      notified += 1;
    });
    toolSettingsEvents.emit('bob', 'get_current_datetime');
    await client.ping(); // a round trip: a notification sent before it would have arrived by now
    expect(notified).toBe(0);
  });

  test('tools/call runs through executeTool: result, validation error and unknown tool as isError', async () => {
    const { registry } = createMcpTestRegistry();
    const { client } = await connect({ toolSettings: new InMemoryToolSettingsRepository(), registry });

    const ok = await client.callTool({
      name: 'get_current_datetime',
      arguments: { timezone: 'America/Sao_Paulo', locale: 'pt-BR' },
    });
    expect(ok.isError).toBeUndefined();
    expect(structured(ok).offset).toBe('GMT-3');
    expect(JSON.parse((ok.content as { text: string }[])[0]!.text)).toEqual(structured(ok));

    const invalid = await client.callTool({ name: 'get_current_datetime', arguments: { timezone: 42 } });
    expect(invalid.isError).toBe(true);
    expect(structured(invalid).error).toMatchObject({ classification: 'validation_failed' });

    const undeclared = await client.callTool({ name: 'get_current_datetime', arguments: { zone: 'UTC' } });
    expect(structured(undeclared).error).toMatchObject({ classification: 'validation_failed' });

    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect(structured(unknown).error).toMatchObject({ classification: 'unknown_tool' });
  });

  test("tools/call applies the chat loop's result budget, raised to the tool's own", async () => {
    const { registry } = createMcpTestRegistry();
    const big = { text: 'x'.repeat(300_000) };
    registry.register(makeTool({ name: 'big_output', execute: async () => big }));
    registry.register(
      makeTool({ name: 'big_budget', resultBudgetBytes: 600 * 1024, execute: async () => big }),
    );
    const { client } = await connect({ toolSettings: new InMemoryToolSettingsRepository(), registry });

    const cut = await client.callTool({ name: 'big_output', arguments: {} });
    const text = (cut.content as { text: string }[])[0]!.text;
    expect(cut.isError).toBeUndefined();
    expect(cut.structuredContent).toBeUndefined();
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(DEFAULT_TOOL_OUTPUT_BUDGET_BYTES);
    expect(text).toStartWith('{"text":"xxxx');
    expect(text).toContain(
      `\n[cut: this tool result is 300011 bytes, over the ${DEFAULT_TOOL_OUTPUT_BUDGET_BYTES}-byte limit for one result`,
    );
    expect(CUT_MARKER_PATTERN.test(text)).toBe(true);

    const whole = await client.callTool({ name: 'big_budget', arguments: {} });
    expect((whole.content as { text: string }[])[0]!.text).toBe(JSON.stringify(big));
    expect(whole.structuredContent).toEqual(big);
  });

  test('calls see the bound access, and share one ledger per session', async () => {
    const { registry } = createMcpTestRegistry();
    const toolSettings = new InMemoryToolSettingsRepository();
    const binding = { toolSettings, registry };
    const first = await connect(binding);
    const second = await connect(binding);

    const call = (client: Client) => client.callTool({ name: 'session_probe', arguments: { path: '/a' } });
    expect(structured(await call(first.client))).toEqual({
      userId: 'alice',
      workingDirectory: '/srv/project',
      roots: [{ path: '/srv/project', access: 'read-write' }],
      seenBefore: false,
    });
    expect(structured(await call(first.client)).seenBefore).toBe(true);
    expect(structured(await call(second.client)).seenBefore).toBe(false);
  });

  test('access is computed before every call; a refusal fails the call before the tool runs', async () => {
    const tools = createMcpTestRegistry();
    let refusal: string | undefined;
    let computed = 0;
    const { client } = await connect({
      toolSettings: new InMemoryToolSettingsRepository(),
      registry: tools.registry,
      resolveAccess: async () => {
        computed += 1;
        if (refusal !== undefined) throw new Error(refusal);
        return projectAccess;
      },
    });
    expect(
      (await client.callTool({ name: 'session_probe', arguments: { path: '/b' } })).isError,
    ).toBeUndefined();
    refusal = 'The working directory is not inside any of your workspaces (GET /api/workspaces lists them).';
    const refused = await client.callTool({ name: 'session_probe', arguments: { path: '/c' } });
    expect(refused.isError).toBe(true);
    expect(structured(refused).error).toEqual({ classification: 'permission_denied', message: refusal });
    refusal = undefined;
    // The refused call never ran: it recorded nothing in the ledger.
    expect(
      structured(await client.callTool({ name: 'session_probe', arguments: { path: '/c' } })).seenBefore,
    ).toBe(false);
    expect(computed).toBe(3);
  });

  test('a client cancel aborts the running call with a cancelled reason; the session goes on', async () => {
    const tools = createMcpTestRegistry();
    const { client } = await connect({
      toolSettings: new InMemoryToolSettingsRepository(),
      registry: tools.registry,
    });
    const observation = tools.expectWaitCall();
    const controller = new AbortController();
    const call = client.callTool({ name: 'wait_for_abort', arguments: {} }, undefined, {
      signal: controller.signal,
    });
    await observation.started;
    controller.abort('user pressed stop');
    await expect(call).rejects.toThrow();
    const reason = await observation.aborted;
    expect((reason as { classification?: string }).classification).toBe('cancelled');
    expect((await client.callTool({ name: 'get_current_datetime', arguments: {} })).isError).toBeUndefined();
  });

  test('closing the session aborts a running call and ends the settings subscription', async () => {
    const tools = createMcpTestRegistry();
    const toolSettingsEvents = new CountingToolSettingsEvents();
    let closedCount = 0;
    const { client } = await connect({
      toolSettings: new InMemoryToolSettingsRepository(),
      toolSettingsEvents,
      registry: tools.registry,
      onClose: () => {
        closedCount += 1;
      },
    });
    expect(toolSettingsEvents.active).toBe(1);
    const observation = tools.expectWaitCall();
    const call = client.callTool({ name: 'wait_for_abort', arguments: {} }).catch((error: unknown) => error);
    await observation.started;
    await client.close();
    expect((await observation.aborted) as unknown).toBeDefined();
    await call;
    expect(closedCount).toBe(1);
    expect(toolSettingsEvents.active).toBe(0);
  });

  test('progress events reach the client as increasing progress notifications', async () => {
    const { registry } = createMcpTestRegistry();
    const { client } = await connect({ toolSettings: new InMemoryToolSettingsRepository(), registry });
    const seen: unknown[] = [];
    const result = await client.callTool({ name: 'report_progress', arguments: {} }, undefined, {
      onprogress: (progress) => seen.push(progress),
    });
    expect(structured(result)).toEqual({ images: 3 });
    expect(seen).toEqual([
      { progress: 1, total: 3, message: 'image 1 of 3' },
      { progress: 2, total: 3, message: 'image 2 of 3' },
      { progress: 3, total: 3, message: 'image 3 of 3' },
    ]);
  });
});
