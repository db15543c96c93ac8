/**
 * A reload shows what the live stream showed: turns run through the real server (HTTP API over SQLite),
 * their live events folded as the page folds them, compared with the transcript the page builds from
 * `GET /api/chats/:id` (messages and turn traces). Also: a turn from before traces shows what its record has.
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
import { applyTurnEvent, emptyTranscript } from '../../web/transcript.ts';
import { transcriptFromHistory } from '../../web/transcript-from-history.ts';
import { makeTool } from '../helpers/fake-tools.ts';
import { ScriptedProvider, toolCallEvents } from '../helpers/scripted-provider.ts';
import { collectSseEvents } from '../helpers/sse-client.ts';
import { createStubProviderRegistry } from '../helpers/stub-provider-registry.ts';
import { FIXED_NOW } from '../helpers/test-app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/test-database.ts';

const script: (readonly ProviderEvent[])[] = [
  [
    { type: 'provider_retry', attempt: 1, waitSeconds: 2 },
    { type: 'text_delta', delta: 'Working on it.' },
    ...toolCallEvents({ id: 'c1', name: 'steps', arguments: {} }),
    ...toolCallEvents({ id: 'c2', name: 'broken', arguments: {} }),
    { type: 'finish', reason: 'tool_calls', usage: { inputTokens: 1200, outputTokens: 40 } },
  ],
  [
    { type: 'text_delta', delta: '## Done\n\nBoth ran.' },
    { type: 'finish', reason: 'stop', usage: { inputTokens: 1500, outputTokens: 12 } },
  ],
  [
    {
      type: 'finish',
      reason: 'error',
      message: 'upstream said 503',
      usage: { inputTokens: 9, outputTokens: 0 },
    },
  ],
  [
    { type: 'text_delta', delta: 'A long answer that' },
    { type: 'finish', reason: 'length', usage: { inputTokens: 30, outputTokens: 4096 } },
  ],
];

describe('transcript after a reload', () => {
  let handle: TestDatabase;
  let workspace: string;
  let deps: AppDependencies;
  let app: ReturnType<typeof createApp>;
  let token: string;
  const queue = [...script];
  const registry = new ToolRegistry();
  registry.register(
    makeTool({
      name: 'steps',
      execute: async (_args, context) => {
        context.onProgress({ type: 'status', message: 'image 1 of 2 done' });
        context.onProgress({ type: 'status', message: 'image 2 of 2 done' });
        return { images: 2 };
      },
    }),
  );
  registry.register(
    makeTool({
      name: 'broken',
      execute: async () => {
        throw new Error('disk full');
      },
    }),
  );
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
    workspace = await realpath(await mkdtemp(join(tmpdir(), 'mango-transcript-reload-')));
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
    const user = await deps.users.create('fatima');
    token = user.token;
    await deps.workspaces.grant(user.user.id, workspace, false);
  }, 30_000);
  afterAll(async () => {
    await handle.dispose();
    await rm(workspace, { recursive: true, force: true });
  });

  test('cards, durations, progress, errors (once), notices and usage are the same as live', async () => {
    const created = await request('POST', '/api/chats', {
      provider: 'openai',
      model: 'm',
      workingDirectory: workspace,
    });
    const chat = (await created.json()) as { id: string };
    const live = emptyTranscript();
    for (const message of ['Make two images', 'And again', 'Write a lot']) {
      live.entries.push({ kind: 'user', text: message });
      live.running = true;
      const events = await collectSseEvents(
        await request('POST', `/api/chats/${chat.id}/turns`, { message }),
      );
      for (const event of events) applyTurnEvent(live, event as TurnStreamEvent);
    }
    const shown = (await (await request('GET', `/api/chats/${chat.id}`)).json()) as {
      messages: ChatMessage[];
      turns: TurnSummary[];
    };
    const reloaded = transcriptFromHistory(shown.messages, shown.turns);
    expect(reloaded.entries).toEqual(live.entries);

    // The exact entries, so "the same" cannot be "equally empty".
    const kinds = reloaded.entries.map((entry) =>
      entry.kind === 'notice' || entry.kind === 'user' ? `${entry.kind}: ${entry.text}` : entry.kind,
    );
    expect(kinds).toEqual([
      'user: Make two images',
      'notice: The provider is busy; retrying in 2 s.',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'usage',
      'user: And again',
      'notice: Provider error: upstream said 503',
      'usage',
      'user: Write a lot',
      'assistant',
      "notice: The answer was cut at the output limit. The model's answer was cut at its output token limit.",
      'usage',
    ]);
    const [steps, broken] = reloaded.entries.filter((entry) => entry.kind === 'tool');
    expect(steps).toMatchObject({
      status: 'succeeded',
      result: { images: 2 },
      progress: [
        { type: 'tool_progress', callId: 'c1', progress: { type: 'status', message: 'image 1 of 2 done' } },
        { type: 'tool_progress', callId: 'c1', progress: { type: 'status', message: 'image 2 of 2 done' } },
      ],
    });
    expect(typeof steps!.durationMs).toBe('number');
    expect(broken).toMatchObject({
      status: 'failed',
      error: { message: expect.stringContaining('disk full') },
    });
    expect(reloaded.entries.filter((entry) => entry.kind === 'usage')).toEqual([
      { kind: 'usage', inputTokens: 2700, outputTokens: 52 },
      { kind: 'usage', inputTokens: 9, outputTokens: 0 },
      { kind: 'usage', inputTokens: 30, outputTokens: 4096 },
    ]);
  });

  test('a turn from before traces shows its messages, its error and its usage', () => {
    const messages: ChatMessage[] = [
      { seq: 1, role: 'user', item: { type: 'user_text', text: 'Hi' } },
      { seq: 2, role: 'assistant', item: { type: 'assistant_text', text: 'Hel' } },
      { seq: 3, role: 'user', item: { type: 'user_text', text: 'Still there?' } },
    ];
    const turns: TurnSummary[] = [
      {
        id: 't1',
        state: 'lost',
        messageSeqAtStart: 0,
        usage: null,
        durations: null,
        progress: null,
        error: { message: 'The instance running this turn stopped renewing its lease.' },
      },
      {
        id: 't2',
        state: 'cancelled',
        messageSeqAtStart: 2,
        usage: { inputTokens: 10, outputTokens: 1 },
        durations: { totalMs: 50, toolMs: 0 },
        progress: null,
        error: { message: 'The turn was cancelled.' },
      },
    ];
    expect(transcriptFromHistory(messages, turns).entries).toEqual([
      { kind: 'user', text: 'Hi' },
      { kind: 'assistant', text: 'Hel' },
      {
        kind: 'notice',
        tone: 'error',
        text: 'The turn ended with an error. The instance running this turn stopped renewing its lease.',
      },
      { kind: 'user', text: 'Still there?' },
      { kind: 'notice', tone: 'info', text: 'The turn was cancelled.' },
      { kind: 'usage', inputTokens: 10, outputTokens: 1 },
    ]);
    // Chats from before turn records: messages only.
    expect(transcriptFromHistory(messages).entries).toEqual([
      { kind: 'user', text: 'Hi' },
      { kind: 'assistant', text: 'Hel' },
      { kind: 'user', text: 'Still there?' },
    ]);
  });
});
