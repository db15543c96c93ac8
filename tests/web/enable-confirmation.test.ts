import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { readOnlyLocalTraits } from '../../src/tools/tool-traits.ts';
import type { ToolSettingsDescriptor } from '../../web/api-client.ts';
import { needsEnableConfirmation } from '../../web/enable-confirmation.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

// Tools that exist only in this test: the page knows nothing of their names, only what they declare.
function createRegistry(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    makeTool({
      name: 'run_anything',
      traits: {
        readOnly: false,
        destructive: true,
        idempotent: false,
        openWorld: true,
        confirmBeforeEnable: true,
        resultView: 'command_output',
        approvalDefault: 'always',
      },
    }),
  );
  registry.register(makeTool({ name: 'peek', traits: readOnlyLocalTraits('search_matches') }));
  registry.register(makeTool({ name: 'undeclared', traits: undefined }));
  return registry;
}

describe('enabling a tool on the tools page', () => {
  let api: TestApp;
  let descriptors: Map<string, ToolSettingsDescriptor>;
  beforeAll(async () => {
    api = await createTestApp('sqlite', createRegistry());
    const { token } = await api.deps.users.create('alice');
    const { status, json } = await api.request('GET', '/api/settings/tools', { token });
    expect(status).toBe(200);
    const tools = (json as { tools: ToolSettingsDescriptor[] }).tools;
    descriptors = new Map(tools.map((tool) => [tool.name, tool]));
  });
  afterAll(() => api.dispose());

  test('the descriptor carries the traits each tool declares', () => {
    expect(
      [...descriptors.values()].map(({ name, confirmBeforeEnable, resultView }) => ({
        name,
        confirmBeforeEnable,
        resultView,
      })),
    ).toEqual([
      { name: 'run_anything', confirmBeforeEnable: true, resultView: 'command_output' },
      { name: 'peek', confirmBeforeEnable: false, resultView: 'search_matches' },
      // No traits: the cautious answer (ask first, generic view).
      { name: 'undeclared', confirmBeforeEnable: true, resultView: 'json' },
    ]);
  });

  test.each([
    ['run_anything', true, true],
    ['run_anything', false, false],
    ['peek', true, false],
    ['peek', false, false],
    ['undeclared', true, true],
  ] as const)('%s, switching on=%p: asks for confirmation = %p', (name, wanted, expected) => {
    const tool = descriptors.get(name);
    if (!tool) throw new Error(`${name} is missing from GET /api/settings/tools`);
    expect(needsEnableConfirmation(tool, wanted)).toBe(expected);
  });
});
