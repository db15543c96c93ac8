import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolProgressEvent } from '../../src/contracts/tool-progress-event.ts';
import {
  configureImageGeneration,
  resetImageGenerationConfiguration,
} from '../../src/images/image-generation-config.ts';
import { InMemoryImageRepository } from '../../src/images/image-repository.ts';
import { runModelLoop } from '../../src/model-loop/model-loop.ts';
import {
  toolDefsToAnthropic,
  toolDefsToGeminiInteractions,
  toolDefsToResponsesAPI,
} from '../../src/providers/tool-mapper.ts';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { handToSandboxUser } from '../../src/sandbox/sandbox-file-owner.ts';
import { getEnabledToolRuntime } from '../../src/settings/tool-runtime.ts';
import { InMemoryToolSettingsRepository } from '../../src/settings/tool-settings-repository.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { DEFAULT_TOOL_OUTPUT_BUDGET_BYTES } from '../../src/tools/output/result-budget.ts';
import type { ToolRegistry } from '../../src/tools/registry.ts';
import type { ToolExecutionResult } from '../../src/tools/types.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../helpers/scripted-provider.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { createTestSandbox, describeSandbox } from '../sandbox/sandbox-host.ts';
import {
  createExternalSetup,
  type ExternalSetup,
  everythingServer,
  memoryServer,
  probeServer,
} from './external-servers.ts';

describeSandbox('external MCP servers on stdio, in the shell sandbox', () => {
  let sandbox: BubblewrapSandbox;
  let setup: ExternalSetup;
  let alice: ToolRegistry;
  const images = new InMemoryImageRepository();

  beforeAll(async () => {
    sandbox = createTestSandbox();
    setup = await createExternalSetup(sandbox, [everythingServer(), memoryServer(), probeServer()]);
    configureImageGeneration({ repository: images });
    alice = await setup.source.registryFor('alice');
  }, 60_000);
  afterAll(async () => {
    resetImageGenerationConfiguration();
    await setup.dispose();
    sandbox.dispose();
  }, 30_000);

  async function call(
    name: string,
    args: Record<string, unknown>,
    options: {
      user?: 'alice' | 'bob';
      signal?: AbortSignal;
      saved?: unknown;
      progress?: ToolProgressEvent[];
    } = {},
  ): Promise<ToolExecutionResult> {
    const user = options.user ?? 'alice';
    const registry = user === 'alice' ? alice : await setup.source.registryFor('bob');
    return executeTool(
      name,
      args,
      {
        userId: user,
        chatId: 'chat-1',
        reachable: user === 'alice' ? setup.aliceReachable : setup.bobReachable,
        dataDirectory: setup.dataDirectory,
        signal: options.signal,
        onProgress: (event) => options.progress?.push(event),
      },
      options.saved,
      { registry },
    );
  }

  test('every server lists its tools under mcp__<server>__<tool>, settings-ready', async () => {
    const names = alice.list().map((tool) => tool.definition.name);
    expect(names).toContain('mcp__everything__echo');
    expect(names).toContain('mcp__everything__get-sum');
    expect(names).toContain('mcp__memory__create_entities');
    expect(names).toContain('mcp__probe__read_path');
    const odd = names.find((name) => name.startsWith('mcp__probe__Odd_Name_With_Spaces_'));
    expect(odd).toMatch(/^mcp__probe__Odd_Name_With_Spaces_[0-9a-f]{8}$/);
    const echo = alice.get('mcp__everything__echo');
    expect(echo?.settings.category).toBe('external');
    expect(echo?.settings.enabledByDefault).toBe(true);
    expect(echo?.settings.defaultParameters).toEqual({ timeoutSeconds: 60 });
    expect(echo?.traits?.approvalDefault).toBe('always');
    expect(echo?.traits?.readOnly).toBe(false);
    expect(echo?.definition.parameters).toEqual({
      type: 'object',
      properties: { message: { type: 'string', description: 'Message to echo' } },
      required: ['message'],
    });
    const { servers } = await setup.source.serverStates('alice');
    expect(servers.map((server) => [server.name, server.status])).toEqual([
      ['everything', 'connected'],
      ['memory', 'connected'],
      ['probe', 'connected'],
    ]);
    expect(servers[2]?.toolCount).toBe(9);
  });

  test('a schema strict mode cannot take goes to OpenAI Responses with strict: false, a plain one strict', () => {
    const freeForm = alice.get('mcp__probe__free_form')?.definition;
    const echo = alice.get('mcp__everything__echo')?.definition;
    if (!freeForm || !echo) throw new Error('tools missing');
    const [mappedFreeForm, mappedEcho] = toolDefsToResponsesAPI([freeForm, echo]);
    expect(mappedFreeForm?.strict).toBe(false);
    expect(mappedFreeForm?.parameters).toEqual(freeForm.parameters);
    expect(mappedEcho?.strict).toBe(true);
    expect(mappedEcho?.parameters).toEqual({
      type: 'object',
      properties: { message: { type: 'string', description: 'Message to echo' } },
      required: ['message'],
      additionalProperties: false,
    });
    // Gemini and Anthropic get the server's schema through the same sanitizers as builtins'.
    expect(toolDefsToGeminiInteractions([freeForm])[0]?.parameters).toEqual({
      type: 'object',
      properties: { labels: { type: 'object' } },
      required: ['labels'],
    });
    expect(toolDefsToAnthropic([freeForm])[0]).toEqual({
      name: 'mcp__probe__free_form',
      description: 'Takes an open-ended map.',
      input_schema: {
        type: 'object',
        properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } },
        required: ['labels'],
      },
    });
  });

  test('echo and get-sum return the server’s text', async () => {
    expect(await call('mcp__everything__echo', { message: 'hello' })).toEqual({
      ok: true,
      result: { content: [{ type: 'text', text: 'Echo: hello' }] },
    });
    expect(await call('mcp__everything__get-sum', { a: 2, b: 40 })).toEqual({
      ok: true,
      result: { content: [{ type: 'text', text: 'The sum of 2 and 40 is 42.' }] },
    });
  });

  test('arguments are validated centrally against the server’s schema before the server sees them', async () => {
    const outcome = await call('mcp__everything__get-sum', { a: 'two', b: 40 });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error.classification).toBe('validation_failed');
      expect(outcome.error.message).toContain('"a"');
    }
  });

  test('structured content comes back next to the text', async () => {
    const outcome = await call('mcp__everything__get-structured-content', { location: 'Chicago' });
    expect(outcome.ok).toBe(true);
    const result = (outcome as { result: { structuredContent: unknown } }).result;
    expect(result.structuredContent).toEqual({
      temperature: 36,
      conditions: 'Light rain / drizzle',
      humidity: 82,
    });
  });

  test('an image is stored like a generated one and returned as a URL', async () => {
    const outcome = await call('mcp__everything__get-tiny-image', {});
    expect(outcome.ok).toBe(true);
    const content = (outcome as { result: { content: Record<string, unknown>[] } }).result.content;
    const image = content.find((block) => block.type === 'image') as Record<string, unknown>;
    expect(image.mimeType).toBe('image/png');
    expect(image.url).toBe(`/api/images/${image.id as string}`);
    const record = await images.get(image.id as string);
    expect(record?.userId).toBe('alice');
    expect(record?.chatId).toBe('chat-1');
    expect(record?.model).toBe('mcp:everything');
    expect(statSync(record?.filePath ?? '').size).toBe(image.byteLength as number);
  });

  test('a long-running tool reports progress through onProgress', async () => {
    const progress: ToolProgressEvent[] = [];
    const outcome = await call(
      'mcp__everything__trigger-long-running-operation',
      { duration: 0.6, steps: 3 },
      { progress },
    );
    expect(outcome).toEqual({
      ok: true,
      result: {
        content: [
          { type: 'text', text: 'Long running operation completed. Duration: 0.6 seconds, Steps: 3.' },
        ],
      },
    });
    // The SDK delivers a notification that arrives together with the result after it, when the call
    // has already ended: the last step may be overtaken.
    expect(progress.map((event) => [event.completed, event.total]).slice(0, 2)).toEqual([
      [1, 3],
      [2, 3],
    ]);
    expect(progress[0]?.type).toBe('external_progress');
  }, 20_000);

  test('server-memory keeps its graph in the user’s own state directory, across a restart', async () => {
    const created = await call('mcp__memory__create_entities', {
      entities: [{ name: 'Mango', entityType: 'project', observations: ['tools for chats'] }],
    });
    expect(created.ok).toBe(true);
    const file = join(setup.stateDirectory, 'alice', 'memory', 'memory.jsonl');
    expect(readFileSync(file, 'utf8')).toContain('"name":"Mango"');
    // A new program (the pool lost it) reads the same file; bob's memory is his own.
    await setup.source.forgetServer('memory');
    alice = await setup.source.registryFor('alice');
    const read = await call('mcp__memory__read_graph', {});
    expect(JSON.stringify(read)).toContain('tools for chats');
    const bobs = await call('mcp__memory__read_graph', {}, { user: 'bob' });
    expect(bobs.ok).toBe(true);
    expect(JSON.stringify(bobs)).not.toContain('Mango');
  }, 30_000);

  describe('what the program can reach', () => {
    test('its state directory, writable', async () => {
      const outcome = await call('mcp__probe__write_state', { text: 'kept' });
      expect(outcome.ok).toBe(true);
      expect(readFileSync(join(setup.stateDirectory, 'alice', 'probe', 'written.txt'), 'utf8')).toBe('kept');
    });

    test('its state as an older version kept it (in the data directory), moved at first use', async () => {
      // What an older version made (already given to carol's uid, as migrate-owners does), the file inside.
      const older = join(setup.dataDirectory, 'mcp-state', 'carol', 'probe');
      mkdirSync(older, { recursive: true, mode: 0o700 });
      writeFileSync(join(older, 'written.txt'), 'carol-older-state');
      await handToSandboxUser(older, 'carol', sandbox);
      await handToSandboxUser(join(older, 'written.txt'), 'carol', sandbox);
      const registry = await setup.source.registryFor('carol');
      const moved = join(setup.stateDirectory, 'carol', 'probe', 'written.txt');
      const outcome = await executeTool(
        'mcp__probe__read_path',
        { path: moved },
        { userId: 'carol', reachable: setup.aliceReachable, dataDirectory: setup.dataDirectory },
        undefined,
        { registry },
      );
      expect(outcome).toEqual({
        ok: true,
        result: { content: [{ type: 'text', text: 'carol-older-state' }] },
      });
      expect(existsSync(join(setup.dataDirectory, 'mcp-state'))).toBe(false);
    });

    test('the chat’s workspace', async () => {
      await Bun.write(join(setup.layout.alice, 'note.txt'), 'alice-note');
      const outcome = await call('mcp__probe__read_path', { path: join(setup.layout.alice, 'note.txt') });
      expect(outcome).toEqual({ ok: true, result: { content: [{ type: 'text', text: 'alice-note' }] } });
    });

    test('its own package directory, read-only', async () => {
      const probe = probeServer();
      const inside = join(probe.packageDirectory ?? '', 'package.json');
      expect(existsSync(inside)).toBe(true);
      const read = await call('mcp__probe__read_path', { path: inside });
      expect(JSON.stringify(read)).toContain('mango-tools');
      const before = readFileSync(inside, 'utf8');
      expect(await call('mcp__probe__write_path', { path: inside, text: 'overwritten' })).toEqual({
        ok: false,
        error: {
          classification: 'execution_error',
          message: 'write_path on the MCP server "probe" failed: cannot write: EROFS',
        },
      });
      expect(readFileSync(inside, 'utf8')).toBe(before);
    });

    test.each([
      ['the data directory', (s: ExternalSetup) => join(s.dataDirectory, 'mango.db')],
      ['another user’s workspace', (s: ExternalSetup) => join(s.layout.bob, 'diary.txt')],
      ['a file elsewhere on the host', (s: ExternalSetup) => s.layout.planted],
    ])('not %s', async (_what, pathOf) => {
      const path = pathOf(setup);
      expect(existsSync(path)).toBe(true);
      const outcome = await call('mcp__probe__read_path', { path });
      expect(outcome).toEqual({
        ok: false,
        error: {
          classification: 'execution_error',
          message: 'read_path on the MCP server "probe" failed: cannot read: ENOENT',
        },
      });
    });
  });

  test('in a real turn, a large result reaches the model cut to the result budget, as a builtin’s', async () => {
    const path = join(setup.layout.alice, 'large.txt');
    await Bun.write(path, 'a'.repeat(300_000));
    const settings = new InMemoryToolSettingsRepository();
    await settings.put('alice', 'mcp__probe__read_path', { parameters: { approval: 'never' } });
    const tools = await getEnabledToolRuntime(settings, 'alice', { toolSource: setup.source });
    const provider = new ScriptedProvider([
      toolCallsResponse([{ id: 'big', name: 'mcp__probe__read_path', arguments: { path } }]),
      textResponse('read'),
    ]);
    const results: boolean[] = [];
    for await (const event of runModelLoop({
      provider,
      model: 'm',
      history: [],
      userText: 'read it',
      tools,
      toolContext: {
        userId: 'alice',
        chatId: 'chat-1',
        reachable: setup.aliceReachable,
        dataDirectory: setup.dataDirectory,
      },
    })) {
      if (event.type === 'tool_result') results.push(event.ok);
    }
    expect(results).toEqual([true]);
    const sent = JSON.stringify(provider.requests[1]?.history);
    expect(sent).toContain(
      `over the ${DEFAULT_TOOL_OUTPUT_BUDGET_BYTES}-byte limit for one result, and only the first`,
    );
    expect(sent.length).toBeLessThan(DEFAULT_TOOL_OUTPUT_BUDGET_BYTES + 10_000);
  }, 30_000);

  test('notifications/tools/list_changed refreshes the user’s list', async () => {
    expect(alice.get('mcp__probe__grown')).toBeUndefined();
    expect((await call('mcp__probe__grow', {})).ok).toBe(true);
    let registry = await setup.source.registryFor('alice');
    await waitUntil(async () => {
      registry = await setup.source.registryFor('alice');
      return registry.get('mcp__probe__grown') !== undefined;
    }, 10_000);
    expect(registry.get('mcp__probe__grown')?.definition.description).toBe('Appeared later.');
    alice = registry;
  }, 20_000);

  test('network "none": the program cannot reach a service on the host’s loopback (more in stdio-network.test.ts)', async () => {
    const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    try {
      const outcome = await call('mcp__probe__connect', { host: '127.0.0.1', port: listener.port });
      expect(outcome).toEqual({
        ok: true,
        result: { content: [{ type: 'text', text: 'refused: ECONNREFUSED' }] },
      });
    } finally {
      listener.stop(true);
    }
  });

  test('a cancel reaches the server as notifications/cancelled', async () => {
    const controller = new AbortController();
    const events = join(setup.stateDirectory, 'alice', 'probe', 'events.txt');
    const running = call('mcp__probe__wait_for_cancel', {}, { signal: controller.signal });
    // Only once the server has the request does the call get cancelled.
    expect(await waitUntil(() => existsSync(events), 10_000)).toBe(true);
    controller.abort();
    const outcome = await running;
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.classification).toBe('cancelled');
    expect(await waitUntil(() => readFileSync(events, 'utf8').includes('cancelled'), 10_000)).toBe(true);
    expect(readFileSync(events, 'utf8')).toBe('started\ncancelled\n');
  }, 30_000);

  test('the budget (timeoutSeconds) ends a call as a timeout and cancels it on the server', async () => {
    const outcome = await call(
      'mcp__probe__wait_for_cancel',
      {},
      { saved: { parameters: { timeoutSeconds: 5 } } },
    );
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.classification).toBe('timeout');
  }, 30_000);

  test('a server that crashes mid-call fails that call with its last words; the next call starts it again', async () => {
    const outcome = await call('mcp__probe__crash', {});
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) {
      expect(outcome.error.classification).toBe('execution_error');
      expect(outcome.error.message).toContain('The MCP server "probe" stopped during the call');
      expect(outcome.error.message).toContain('probe: crashing on purpose');
    }
    // At once: a crash is not a failed attempt, so the pool's backoff does not hold the next call.
    const next = await call('mcp__probe__read_path', { path: join(setup.layout.alice, 'note.txt') });
    expect(next.ok).toBe(true);
  }, 30_000);
});
