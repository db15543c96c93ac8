/**
 * The walkthrough proof: `shout` is one `defineTool()` file plus one list entry, and with no other change
 * it gets central argument validation, settings (defaults, descriptors, bounds enforced by the real
 * settings API), its traits (read-only calls run side by side in the loop), a strict OpenAI mapping, a
 * row in `GET /api/settings/tools` (what the tools page renders) and MCP `tools/list` + `tools/call`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { TurnEvent } from '../../../src/contracts/turn-event.ts';
import { createMcpToolServer } from '../../../src/mcp/mcp-tool-server.ts';
import { runModelLoop } from '../../../src/model-loop/model-loop.ts';
import {
  toolDefsToAnthropic,
  toolDefsToGeminiInteractions,
  toolDefsToResponsesAPI,
} from '../../../src/providers/tool-mapper.ts';
import { computeReachableSet } from '../../../src/tools/access/reachable-set.ts';
import { executeTool } from '../../../src/tools/execution.ts';
import { toolSettingsMetadataOf } from '../../../src/tools/tool-settings-metadata.ts';
import { getToolDefinitionsForTools } from '../../../src/tools/tool-settings-resolver.ts';
import type { ToolExecutionResult } from '../../../src/tools/types.ts';
import { toolAccessContext } from '../../../src/workspaces/tool-access.ts';
import { callResultData } from '../../helpers/mcp-test-tools.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../../helpers/scripted-provider.ts';
import { createTestApp, type TestApp } from '../../helpers/test-app.ts';
import { BACKENDS } from '../../helpers/test-database.ts';
import { makeReachableSet } from '../../helpers/tool-context.ts';
import { loadRuntime } from '../../helpers/turn-tools.ts';
import { shoutActivity, shoutTool } from './shout-tool.ts';
import { createWalkthroughRegistry } from './walkthrough-tools.ts';

const registry = createWalkthroughRegistry();

function call(args: unknown, parameters: Record<string, unknown> = {}): Promise<ToolExecutionResult> {
  return executeTool(
    'shout',
    args,
    { userId: 'u1', reachable: makeReachableSet() },
    { parameters },
    { registry },
  );
}

describe('central validation, from the schema alone', () => {
  test.each([
    [{ text: 'hi' }, {}, { shouted: 'HI!' }],
    [{ text: 'hi', marks: 5 }, {}, { shouted: 'HI!!!' }],
    [{ text: 'hi', marks: 2, style: 'spaced' }, {}, { shouted: 'H I!!' }],
    // A strict-mode model sends null for each optional it leaves out.
    [{ text: 'hi', marks: null, style: null }, {}, { shouted: 'HI!' }],
    [{ text: 'hi', marks: 5 }, { maxMarks: 4, defaultStyle: 'spaced' }, { shouted: 'H I!!!!' }],
  ])('%j with settings %j → %j', async (args, parameters, result) => {
    expect(await call(args, parameters)).toEqual({ ok: true, result });
  });

  test.each([
    [{}, 'Argument "text" is required (a string).'],
    [{ text: 42 }, 'Argument "text" must be a string (Text to shout), got number 42.'],
    [{ text: '' }, 'Argument "text" must be at least 1 character long, got 0.'],
    [{ text: 'x'.repeat(201) }, 'Argument "text" must be at most 200 characters long, got 201.'],
    [{ text: 'hi', marks: 6 }, 'Argument "marks" must be at most 5, got 6.'],
    [
      { text: 'hi', marks: 1.5 },
      'Argument "marks" must be an integer (Exclamation marks (default 1)), got number 1.5.',
    ],
    [{ text: 'hi', style: 'loud' }, 'Argument "style" must be one of "plain", "spaced", got "loud".'],
    [
      { text: 'hi', volume: 11 },
      'Tool "shout" has no argument "volume". Its arguments are: text, marks, style.',
    ],
    [{ text: '   ' }, 'Argument "text" must not be blank.'],
  ])('%j is validation_failed: %s', async (args, message) => {
    expect(await call(args)).toEqual({ ok: false, error: { classification: 'validation_failed', message } });
  });
});

test('settings: defaults and descriptors derived from the one declaration', () => {
  expect(shoutTool.settings).toEqual({
    title: 'Shout',
    description: 'Upper-cases text.',
    category: 'interaction',
    enabledByDefault: true,
    canDisable: true,
    defaultParameters: { maxMarks: 3, defaultStyle: 'plain' },
    parameterDescriptors: [
      {
        name: 'maxMarks',
        label: 'Most exclamation marks',
        description: 'A call asking for more gets this many.',
        type: 'integer',
        min: 1,
        max: 10,
        default: 3,
      },
      {
        name: 'defaultStyle',
        label: 'Default style',
        description: 'The style used when the model names none.',
        type: 'select',
        allowedValues: ['plain', 'spaced'],
        default: 'plain',
      },
    ],
  });
});

test('strict provider mapping: OpenAI strict mode, Gemini and Anthropic', () => {
  const definitions = getToolDefinitionsForTools([shoutTool]);
  expect(toolSettingsMetadataOf(shoutTool).parameterDescriptors.map((descriptor) => descriptor.name)).toEqual(
    ['maxMarks', 'defaultStyle', 'approval', 'approvalTimeoutSeconds'],
  );
  expect(toolDefsToResponsesAPI(definitions)).toEqual([
    {
      type: 'function',
      name: 'shout',
      description: 'Returns the text in capital letters, followed by exclamation marks.',
      strict: true,
      parameters: {
        type: 'object',
        properties: {
          text: { type: 'string', description: 'Text to shout' },
          marks: {
            type: ['integer', 'null'],
            description: 'Exclamation marks (default 1)',
            minimum: 1,
            maximum: 5,
          },
          style: {
            type: ['string', 'null'],
            enum: ['plain', 'spaced', null],
            description: 'spaced puts a space between letters',
          },
        },
        required: ['text', 'marks', 'style'],
        additionalProperties: false,
      },
    },
  ]);
  const source = definitions[0]!.parameters;
  expect(toolDefsToAnthropic(definitions)[0]?.input_schema as unknown).toEqual(source);
  expect(toolDefsToGeminiInteractions(definitions)[0]?.parameters).toMatchObject({
    type: 'object',
    required: ['text'],
  });
});

test('traits: its read-only calls run side by side in the loop', async () => {
  shoutActivity.maxActive = 0;
  const calls = ['a', 'b', 'c'].map((text, index) => ({
    id: `s${index}`,
    name: 'shout',
    arguments: { text },
  }));
  const provider = new ScriptedProvider([toolCallsResponse(calls), textResponse('done')]);
  const events: TurnEvent[] = [];
  for await (const event of runModelLoop({
    provider,
    model: 'test-model',
    systemPrompt: 'SYSTEM',
    history: [],
    userText: 'shout',
    tools: await loadRuntime(registry),
    toolContext: { userId: 'u1', reachable: makeReachableSet(), chatId: 'c1' },
    now: () => 1000,
    onItem: () => {},
    executeOptions: { registry },
  })) {
    events.push(event);
  }
  expect(events.flatMap((event) => (event.type === 'tool_result' ? [[event.callId, event.ok]] : []))).toEqual(
    [
      ['s0', true],
      ['s1', true],
      ['s2', true],
    ],
  );
  expect(shoutActivity.maxActive).toBe(3);
});

describe.each(BACKENDS)('the settings API, the tools page and MCP on %s', (backend) => {
  let api: TestApp;
  let token: string;
  let userId: string;
  const clients: Client[] = [];
  beforeAll(async () => {
    api = await createTestApp(backend, createWalkthroughRegistry());
    const created = await api.deps.users.create('walker');
    token = created.token;
    userId = (await api.deps.users.findByName('walker'))!.id;
  });
  afterEach(async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  });
  afterAll(() => api.dispose());

  async function connectMcp(): Promise<Client> {
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const access = toolAccessContext(
      computeReachableSet({
        workspaces: [{ path: '/srv/project', access: 'read-write', kind: 'granted' }],
        workingDirectory: '/srv/project',
        homeDirectory: '/srv/project',
        confined: true,
        protectedPaths: [],
      }),
    );
    const server = createMcpToolServer({
      userId,
      log: () => {},
      resolveAccess: async () => access,
      toolSettings: api.deps.toolSettingsRepository,
      registry: api.deps.registry,
    });
    await server.connect(serverTransport);
    const client = new Client({ name: 'walkthrough', version: '1' });
    await client.connect(clientTransport);
    clients.push(client);
    return client;
  }

  test('GET /api/settings/tools lists it as the tools page renders it', async () => {
    const { status, json } = await api.request('GET', '/api/settings/tools', { token });
    expect(status).toBe(200);
    expect((json as { tools: unknown[] }).tools).toEqual([
      {
        name: 'shout',
        title: 'Shout',
        description: 'Upper-cases text.',
        category: 'interaction',
        enabled: true,
        canDisable: true,
        available: true,
        confirmBeforeEnable: false,
        readOnly: true,
        resultView: 'json',
        // Its own settings, then the approval settings every tool gets (read-only: no question by default).
        parameters: { maxMarks: 3, defaultStyle: 'plain', approval: 'never', approvalTimeoutSeconds: 600 },
        parameterDescriptors: toolSettingsMetadataOf(shoutTool).parameterDescriptors,
      },
    ]);
  });

  test('PUT enforces the declared bounds and allowed values', async () => {
    for (const [parameters, code, error] of [
      [
        { maxMarks: 11 },
        'out_of_range',
        'Tool "shout" setting "Most exclamation marks" must be at most 10, got 11.',
      ],
      [
        { maxMarks: 0 },
        'out_of_range',
        'Tool "shout" setting "Most exclamation marks" must be at least 1, got 0.',
      ],
      [
        { maxMarks: 2.5 },
        'invalid_type',
        'Tool "shout" setting "Most exclamation marks" must be an integer, got the number 2.5.',
      ],
      [
        { defaultStyle: 'loud' },
        'not_allowed_value',
        'Tool "shout" setting "Default style" must be one of "plain", "spaced", got "loud".',
      ],
      [
        { volume: 1 },
        'unknown_parameter',
        'Tool "shout" has no setting "volume"; its settings are maxMarks, defaultStyle, approval, approvalTimeoutSeconds.',
      ],
    ] as const) {
      const response = await api.request('PUT', '/api/settings/tools/shout', { token, body: { parameters } });
      expect({ status: response.status, json: response.json }).toMatchObject({
        status: 422,
        json: { code, error },
      });
    }
  });

  test('MCP tools/list offers it and tools/call runs it under the settings saved through the API', async () => {
    const saved = await api.request('PUT', '/api/settings/tools/shout', {
      token,
      body: { parameters: { maxMarks: 2, defaultStyle: 'spaced' } },
    });
    expect(saved.status).toBe(200);
    const client = await connectMcp();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['shout']);
    expect(tools[0]).toMatchObject({
      inputSchema: shoutTool.definition.parameters,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    });
    const result = await client.callTool({ name: 'shout', arguments: { text: 'ok', marks: 5 } });
    expect(callResultData(result)).toEqual({ shouted: 'O K!!' });
    const refused = await client.callTool({ name: 'shout', arguments: { text: 7 } });
    expect(refused.isError).toBe(true);
    expect(callResultData(refused)).toEqual({
      error: {
        classification: 'validation_failed',
        message: 'Argument "text" must be a string (Text to shout), got number 7.',
      },
    });
  });
});
