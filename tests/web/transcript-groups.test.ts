/**
 * Tool calls are laid out in groups, one per model response: run through the real server (HTTP API over
 * SQLite), a turn whose first response calls three tools at once and whose second calls two shows two
 * groups of three and two, live, after a reload from its messages and trace, and from its messages alone
 * (a turn from before traces). A card the turn record makes before the stream replays stays its own
 * group until the stream places it in its response's group.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProviderEvent } from '../../src/contracts/provider-event.ts';
import { createApp } from '../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../src/http/app-dependencies.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import type { ChatMessage, TurnSummary } from '../../web/api-client.ts';
import type { TurnStreamEvent } from '../../web/sse-parser.ts';
import {
  applyPendingApprovals,
  applyTurnEvent,
  emptyTranscript,
  type Transcript,
} from '../../web/transcript.ts';
import { transcriptFromHistory } from '../../web/transcript-from-history.ts';
import { transcriptItems } from '../../web/transcript-groups.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import { ScriptedProvider, toolCallEvents } from '../helpers/scripted-provider.ts';
import { collectSseEvents } from '../helpers/sse-client.ts';
import { createStubProviderRegistry } from '../helpers/stub-provider-registry.ts';
import { FIXED_NOW } from '../helpers/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

const calls = (ids: string[], name = 'look') =>
  ids.flatMap((id) => toolCallEvents({ id, name, arguments: { path: id } }));

const script: (readonly ProviderEvent[])[] = [
  [
    ...calls(['a', 'b', 'c']),
    { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 1, outputTokens: 1 } },
  ],
  [
    ...calls(['d', 'e']),
    { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 1, outputTokens: 1 } },
  ],
  [
    { type: 'text_delta', delta: 'Looked.' },
    { type: 'finish', reason: 'stop' },
  ],
];

/** The layout as kinds, with each group as the ids of its calls. */
function layout(transcript: Transcript): unknown[] {
  return transcriptItems(transcript.entries).map((item) =>
    item.kind === 'calls' ? item.calls.map((call) => call.callId) : item.entry.kind,
  );
}

const EXPECTED = ['user', ['a', 'b', 'c'], ['d', 'e'], 'assistant', 'usage'];

describe('tool call groups', () => {
  let handle: TestDatabase;
  let workspace: string;
  let deps: AppDependencies;
  let app: ReturnType<typeof createApp>;
  let token: string;
  const queue = [...script];
  const registry = new ToolRegistry();
  registry.register(makeTool({ name: 'look', execute: async () => ({ seen: true }) }));
  const request = (method: string, path: string, body?: unknown) =>
    app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );

  beforeAll(async () => {
    handle = await createTestDatabase('sqlite');
    workspace = await realpath(await mkdtemp(join(tmpdir(), 'mango-transcript-groups-')));
    deps = createAppDependencies({
      config: handle.config,
      database: handle.database,
      registry,
      now: () => FIXED_NOW,
      providers: createStubProviderRegistry({
        openai: new ScriptedProvider([], {
          id: 'openai',
          repeat: async function* () {
            yield* queue.shift() ?? [{ type: 'finish', reason: 'error', message: 'No response queued.' }];
          },
        }),
      }),
      log: () => {},
    });
    app = createApp(deps);
    const user = await deps.users.create('amara');
    token = user.token;
    await deps.workspaces.grant(user.user.id, workspace, false);
  }, 30_000);
  afterAll(async () => {
    await handle.dispose();
    await rm(workspace, { recursive: true, force: true });
  });

  test('one group per model response, live, after a reload, and from messages alone', async () => {
    const created = await request('POST', '/api/chats', {
      provider: 'openai',
      model: 'm',
      workingDirectory: workspace,
    });
    const chat = (await created.json()) as { id: string };
    const live = emptyTranscript();
    live.entries.push({ kind: 'user', text: 'Look around' });
    live.running = true;
    const events = await collectSseEvents(
      await request('POST', `/api/chats/${chat.id}/turns`, { message: 'Look around' }),
    );
    for (const event of events) applyTurnEvent(live, event as TurnStreamEvent);
    expect(layout(live)).toEqual(EXPECTED);

    const shown = (await (await request('GET', `/api/chats/${chat.id}`)).json()) as {
      messages: ChatMessage[];
      turns: TurnSummary[];
    };
    const reloaded = transcriptFromHistory(shown.messages, shown.turns);
    expect(layout(reloaded)).toEqual(EXPECTED);
    expect(reloaded.entries).toEqual(live.entries);
    // A turn from before traces: only its messages say where a response ended.
    expect(layout(transcriptFromHistory(shown.messages, []))).toEqual([
      'user',
      ['a', 'b', 'c'],
      ['d', 'e'],
      'assistant',
    ]);
  });
});

test('a card from the turn record is its own group until the replay places it in its response', () => {
  const transcript = emptyTranscript();
  transcript.entries.push({ kind: 'user', text: 'Edit both' });
  transcript.running = true;
  applyPendingApprovals(transcript, [
    { callId: 'y', name: 'edit', arguments: { path: 'y' }, reason: 'asks', requestedAt: '', expiresAt: '' },
  ]);
  expect(layout(transcript)).toEqual(['user', ['y']]);
  for (const event of [
    { type: 'tool_call_started', callId: 'x', name: 'edit' },
    { type: 'tool_call_completed', callId: 'x', name: 'edit', arguments: '{"path":"x"}' },
  ] as TurnStreamEvent[])
    applyTurnEvent(transcript, event);
  // The stream's call comes after the record's card, in a group of its own: the record is not a response.
  expect(layout(transcript)).toEqual(['user', ['y'], ['x']]);
  for (const event of [
    { type: 'tool_call_started', callId: 'y', name: 'edit' },
    { type: 'tool_call_completed', callId: 'y', name: 'edit', arguments: '{"path":"y"}' },
    { type: 'finish', reason: 'tool_calls' },
    { type: 'tool_call_started', callId: 'z', name: 'edit' },
  ] as TurnStreamEvent[])
    applyTurnEvent(transcript, event);
  expect(layout(transcript)).toEqual(['user', ['x', 'y'], ['z']]);
});
