import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createUnavailableShellSandbox } from '../../src/sandbox/shell-sandbox-config.ts';
import { createUnsandboxedShell } from '../../src/sandbox/unsandboxed-shell.ts';
import { buildShellTool } from '../../src/tools/builtin/build-shell-tool.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { createTestApp, type TestApp } from '../helpers/test-app.ts';

const REASON =
  'The shell sandbox cannot run: bubblewrap (bwrap) is not installed; install the "bubblewrap" package.';

describe('tool availability through the settings API', () => {
  let api: TestApp;
  let token: string;
  beforeAll(async () => {
    const registry = new ToolRegistry();
    const missing = createUnavailableShellSandbox(REASON);
    const off = createUnsandboxedShell({ log: () => {} });
    registry.register(buildShellTool('bash', { sandbox: () => missing }));
    registry.register(buildShellTool('zsh', { sandbox: () => off }));
    api = await createTestApp('sqlite', registry);
    token = (await api.deps.users.create('alice')).token;
  });
  afterAll(() => api.dispose());

  test('an unavailable shell says so with the reason; the off mode is shown as a notice', async () => {
    const { json } = await api.request('GET', '/api/settings/tools', { token });
    const tools = (json as { tools: Record<string, unknown>[] }).tools;
    expect(
      tools.map(({ name, enabled, available, unavailableReason, notice }) => ({
        name,
        enabled,
        available,
        unavailableReason,
        notice,
      })),
    ).toEqual([
      { name: 'bash', enabled: false, available: false, unavailableReason: REASON, notice: undefined },
      {
        name: 'zsh',
        enabled: false,
        available: true,
        unavailableReason: undefined,
        notice:
          'Sandbox off (MANGO_SHELL_SANDBOX=off): commands run as the server user and see everything it can.',
      },
    ]);
  });

  test('PUT enabling an unavailable tool answers 422 with the reason and saves nothing; disabling is allowed', async () => {
    const refused = await api.request('PUT', '/api/settings/tools/bash', { token, body: { enabled: true } });
    expect(refused).toMatchObject({
      status: 422,
      json: { code: 'tool_unavailable', parameter: 'enabled', error: `Bash cannot be enabled: ${REASON}` },
    });
    const { json } = await api.request('GET', '/api/settings/tools', { token });
    expect((json as { tools: { name: string; enabled: boolean }[] }).tools[0]).toMatchObject({
      name: 'bash',
      enabled: false,
    });
    const disabled = await api.request('PUT', '/api/settings/tools/bash', {
      token,
      body: { enabled: false },
    });
    expect(disabled.status).toBe(200);
  });
});
