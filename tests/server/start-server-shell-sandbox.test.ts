/** startServer probes the shell sandbox (or takes the one it is given), installs it and says so. */
import { afterAll, afterEach, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_MAX_REQUEST_BODY_BYTES } from '../../src/config.ts';
import { hostShellSandbox, installShellSandbox } from '../../src/sandbox/host-shell-sandbox.ts';
import { createUnavailableShellSandbox } from '../../src/sandbox/shell-sandbox-config.ts';
import { type RunningServer, startServer } from '../../src/server/start-server.ts';

const root = await mkdtemp(join(tmpdir(), 'mango-start-sandbox-'));
const previous = hostShellSandbox();
let server: RunningServer | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
  installShellSandbox(previous);
});
afterAll(() => rm(root, { recursive: true, force: true }));

const config = (name: string) => ({
  host: '127.0.0.1',
  port: 0,
  dataDirectory: join(root, name),
  workspacesDirectory: join(root, `${name}-workspaces`),
  databaseUrl: undefined,
  shutdownTimeoutMs: 1000,
  maxRequestBodyBytes: DEFAULT_MAX_REQUEST_BODY_BYTES,
});

test('a given sandbox is installed and its state printed; an unavailable one makes bash unavailable over HTTP', async () => {
  const printed: string[] = [];
  const sandbox = createUnavailableShellSandbox('The shell sandbox cannot run: no bwrap on this test host.');
  server = await startServer(config('given'), {
    print: (line) => printed.push(line),
    env: {},
    shellSandbox: sandbox,
  });
  expect(hostShellSandbox()).toBe(sandbox);
  expect(printed).toContain(
    'Shell tools are unavailable: The shell sandbox cannot run: no bwrap on this test host.',
  );
  const { token } = await server.deps.users.create('alice');
  const response = await fetch(`${server.url}/api/settings/tools`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const bash = ((await response.json()) as { tools: Record<string, unknown>[] }).tools.find(
    (tool) => tool.name === 'bash',
  );
  expect(bash).toMatchObject({
    available: false,
    unavailableReason: 'The shell sandbox cannot run: no bwrap on this test host.',
  });
  const enable = await fetch(`${server.url}/api/settings/tools/bash`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}` },
    body: JSON.stringify({ enabled: true }),
  });
  expect(enable.status).toBe(422);
});

test('MANGO_SHELL_SANDBOX=off is printed as a warning', async () => {
  const printed: string[] = [];
  server = await startServer(config('off'), {
    print: (line) => printed.push(line),
    env: { MANGO_SHELL_SANDBOX: 'off' },
  });
  expect(printed).toContain(
    'WARNING: shell sandbox off (MANGO_SHELL_SANDBOX=off): commands run as the server user and see everything it can.',
  );
});
