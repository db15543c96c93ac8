/**
 * A stdio server's tools are listed where the chat works: a server whose arguments name a granted
 * directory (as `mcp-server-git --repository DIR` does) exits in a program that sees only the personal
 * workspace, yet a chat working in DIR is offered its tools, and the settings view shows them too. The
 * program is offered the chat's reachable set as MCP roots, and a `list_changed` from a chat's program
 * reaches that chat's tools and the settings view. Real bubblewrap, real SDK server.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StdioMcpServerDeclaration } from '../../src/config/mcp-servers-file.ts';
import type { BubblewrapSandbox } from '../../src/sandbox/bubblewrap-sandbox.ts';
import { computeReachableSet, type ReachableSet } from '../../src/tools/access/reachable-set.ts';
import { executeTool } from '../../src/tools/execution.ts';
import { waitUntil } from '../helpers/wait-until.ts';
import { createTestSandbox, describeSandbox } from '../sandbox/sandbox-host.ts';
import { createExternalSetup, type ExternalSetup } from './external-servers.ts';

const DIRECTORY_SCRIPT = join(import.meta.dir, '__fixtures__', 'directory-server.mjs');

describeSandbox('a stdio server that works on a granted directory', () => {
  let sandbox: BubblewrapSandbox;
  let setup: ExternalSetup;
  let repository: string;
  let chat: ReachableSet;

  beforeAll(async () => {
    sandbox = createTestSandbox();
    // The layout is made by the setup; the server is declared after, naming a directory inside it.
    const declared: StdioMcpServerDeclaration = {
      name: 'repo',
      transport: 'stdio',
      command: 'node',
      args: [DIRECTORY_SCRIPT, ''],
      env: {},
      network: 'none',
      packageDirectory: join(import.meta.dir, '..', '..'),
    };
    setup = await createExternalSetup(sandbox, [declared]);
    repository = join(setup.layout.base, 'repository');
    mkdirSync(repository, { mode: 0o755 });
    chmodSync(repository, 0o755);
    writeFileSync(join(repository, 'README.md'), 'hello\n', { mode: 0o644 });
    declared.args[1] = repository;
    chat = computeReachableSet({
      workspaces: [
        { path: setup.layout.alice, access: 'read-write', kind: 'personal' },
        { path: repository, access: 'read-only', kind: 'granted' },
      ],
      workingDirectory: repository,
      homeDirectory: setup.layout.alice,
      confined: true,
      protectedPaths: setup.aliceReachable.protectedPaths,
    });
  }, 60_000);
  afterAll(async () => {
    await setup.dispose();
    sandbox.dispose();
  }, 30_000);

  const call = async (name: string) => {
    const registry = await setup.source.registryFor('alice', chat);
    const result = await executeTool(
      name,
      {},
      { userId: 'alice', chatId: 'chat-repo', reachable: chat, dataDirectory: setup.dataDirectory },
      undefined,
      { registry },
    );
    if (!result.ok) throw new Error(`${name} failed: ${JSON.stringify(result.error)}`);
    return JSON.parse((result.result as { content: { text: string }[] }).content[0]?.text ?? 'null');
  };

  test('from the personal workspace the server cannot start; in the chat working there it is offered', async () => {
    const listing = await setup.source.registryFor('alice', setup.aliceReachable);
    expect(listing.list().map((tool) => tool.definition.name)).toEqual([]);
    const inChat = await setup.source.registryFor('alice', chat);
    expect(inChat.list().map((tool) => tool.definition.name)).toEqual([
      'mcp__repo__files',
      'mcp__repo__roots',
      'mcp__repo__grow',
    ]);
    expect(await call('mcp__repo__files')).toEqual(['README.md']);
  }, 60_000);

  test('the settings view shows the tools a chat has, and the server as connected', async () => {
    const everywhere = await setup.source.registryFor('alice');
    expect(everywhere.list().map((tool) => tool.definition.name)).toEqual([
      'mcp__repo__files',
      'mcp__repo__roots',
      'mcp__repo__grow',
    ]);
    const { servers } = await setup.source.serverStates('alice');
    expect(servers.map((server) => [server.name, server.status, server.toolCount])).toEqual([
      ['repo', 'connected', 3],
    ]);
  });

  test('the program is offered the chat’s reachable set as roots', async () => {
    expect(await call('mcp__repo__roots')).toEqual([
      { uri: pathToFileURL(repository).href, name: 'repository' },
    ]);
  });

  test('list_changed from the chat’s program reaches the chat’s tools and the settings view', async () => {
    expect(await call('mcp__repo__grow')).toBe('grew');
    const grown = async (reachable?: ReachableSet) =>
      (await setup.source.registryFor('alice', reachable)).get('mcp__repo__grown') !== undefined;
    expect(await waitUntil(() => grown(chat), 10_000)).toBe(true);
    expect(await grown()).toBe(true);
  }, 30_000);
});
