/**
 * The chat's access is checked again before every tool call, and that check reads the database. While
 * the database cannot be reached, a turn retries the check as it retries a write, for as long as its
 * lease holds: a short outage costs the call nothing, a long one stops the turn saying why, and an
 * access that was refused (not a database failure) is the call's answer at once.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatService, type ChatServiceDependencies } from '../../src/chat/chat-service.ts';
import { InMemoryChatRepository } from '../../src/chat/in-memory-chat-repository.ts';
import type { ProviderEvent } from '../../src/contracts/provider-event.ts';
import type { TurnEvent } from '../../src/contracts/turn-event.ts';
import { InMemoryFreshnessLedger } from '../../src/tools/freshness-ledger.ts';
import { turnTimingFor } from '../../src/turns/turn-timing.ts';
import type { WorkspaceService } from '../../src/workspaces/workspace-service.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../helpers/scripted-provider.ts';
import { createTestWorkspaces, type TestWorkspaces } from '../helpers/test-workspaces.ts';
import { createTurnTools, loadRuntime } from '../helpers/turn-tools.ts';

let temporary: string;
let project: string;
let workspaces: TestWorkspaces;

beforeAll(async () => {
  temporary = realpathSync(mkdtempSync(join(tmpdir(), 'mango-access-outage-')));
  project = join(temporary, 'project');
  mkdirSync(project);
  workspaces = createTestWorkspaces();
  await workspaces.service.grant('u1', temporary, false);
});
afterAll(() => {
  rmSync(temporary, { recursive: true, force: true });
  workspaces.dispose();
});

/** What the driver throws while the database is down (its code is what the server recognizes). */
const OUTAGE = Object.assign(new Error('Connection closed'), { code: 'ERR_POSTGRES_CONNECTION_CLOSED' });

/** The workspace service with its reachable set failing `failures.left` more times once armed. */
function failingWorkspaces(failures: { left: number }): WorkspaceService {
  const service = workspaces.service;
  return new Proxy(service, {
    get(target, property) {
      if (property === 'reachableSetFor') {
        return async (...args: Parameters<WorkspaceService['reachableSetFor']>) => {
          if (failures.left > 0) {
            failures.left -= 1;
            throw OUTAGE;
          }
          return target.reachableSetFor(...args);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** One call of read_file, the outage armed just before the model asks for it, then an answer. */
function provider(failures: { left: number }, count: number): ScriptedProvider {
  async function* armed(): AsyncIterable<ProviderEvent> {
    failures.left = count;
    yield* toolCallsResponse([{ id: 'c1', name: 'read_file', arguments: { value: '1' } }]);
  }
  return new ScriptedProvider([armed, textResponse('Read it.')]);
}

async function runChatTurn(
  failures: { left: number },
  count: number,
  overrides: Partial<ChatServiceDependencies>,
) {
  const { registry } = createTurnTools();
  const lines: string[] = [];
  const service = new ChatService({
    repository: new InMemoryChatRepository(),
    createProvider: () => provider(failures, count),
    loadToolRuntime: () => loadRuntime(registry),
    createLedger: () => new InMemoryFreshnessLedger(),
    workspaces: failingWorkspaces(failures),
    executeOptions: { registry },
    turnTiming: turnTimingFor(600),
    log: (line) => lines.push(line),
    ...overrides,
  });
  const chat = await service.createChat('u1', { provider: 'openai', model: 'm', workingDirectory: project });
  const events: TurnEvent[] = [];
  for await (const event of await service.startTurn('u1', chat.id, 'read')) events.push(event);
  return { events, lines };
}

const isOutage = (error: unknown) => error === OUTAGE;

describe('the access check before a call while the database is down', () => {
  test('a short outage is retried: the call runs and the turn completes', async () => {
    const failures = { left: 0 };
    const { events } = await runChatTurn(failures, 3, { isDatabaseUnavailable: isOutage });
    expect(failures.left).toBe(0);
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({ callId: 'c1', ok: true });
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'completed' });
  });

  test('an outage longer than the lease stops the turn, saying why', async () => {
    const failures = { left: 0 };
    const { events, lines } = await runChatTurn(failures, 1_000_000, { isDatabaseUnavailable: isOutage });
    const done = events.at(-1);
    expect(done).toMatchObject({ type: 'done', reason: 'error' });
    expect((done as { message: string }).message).toBe(
      'The database could not be reached before the turn lease expired (Connection closed); the turn was stopped.',
    );
    expect(lines.some((line) => line.endsWith(`stopped: ${(done as { message: string }).message}`))).toBe(
      true,
    );
  }, 10_000);

  test('a failure the server does not know as an outage is the call’s answer at once', async () => {
    const failures = { left: 0 };
    const { events } = await runChatTurn(failures, 1, {});
    expect(failures.left).toBe(0);
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
      callId: 'c1',
      ok: false,
      error: { classification: 'permission_denied', message: 'Connection closed' },
    });
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'completed' });
  });
});
