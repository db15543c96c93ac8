/**
 * Approvals through the chat API in process (`app.handle`), on SQLite and PostgreSQL, with a scripted
 * provider and the real bash tool in its sandbox: a call that needs approval emits
 * `tool_approval_requested`, is listed in the turn record's `pendingApprovals` and in a replay, and
 * waits; approve runs it, deny gives the model the user's reason, the timeout (fired by hand) and a
 * cancel end the wait; an auto-approve prefix rule skips the question; `remember` and `rememberPrefix`
 * write the rule to the user's settings (and the rest of the turn applies it); and the 404 / 409 / 422
 * answers of the route.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmod, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../../src/http/app.ts';
import { type AppDependencies, createAppDependencies } from '../../../src/http/app-dependencies.ts';
import type { ModelProvider } from '../../../src/providers/types.ts';
import '../../../src/tools/builtin/index.ts';
import { defaultToolRegistry, ToolRegistry } from '../../../src/tools/registry.ts';
import { parseSimpleCommand } from '../../../src/tools/shell/command-approval-rules.ts';
import { makeTool } from '../../helpers/fake-tools.ts';
import { manualTimers } from '../../helpers/manual-timers.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../../helpers/scripted-provider.ts';
import { collectSseEvents, readSseEvents } from '../../helpers/sse-client.ts';
import { createStubProviderRegistry } from '../../helpers/stub-provider-registry.ts';
import { FIXED_NOW } from '../../helpers/test-app.ts';
import { BACKENDS, createTestDatabase, type TestDatabase } from '../../helpers/test-database.ts';

type Event = Record<string, unknown>;

/** Why the shell grammar refuses `command` (its own wording, so this test pins only the route's). */
function unparsable(command: string): string {
  const parsed = parseSimpleCommand(command, 'bash');
  if (parsed.ok) throw new Error(`${command} parses`);
  return parsed.reason;
}

describe.each(BACKENDS)('approvals through the chat API on %s', (backend) => {
  let handle: TestDatabase;
  let root: string;
  let deps: AppDependencies;
  let app: ReturnType<typeof createApp>;
  let alice: string;
  let bob: string;
  const timers = manualTimers();
  const slot = { provider: new ScriptedProvider([]) };
  const provider: ModelProvider = { id: 'openai', stream: (request) => slot.provider.stream(request) };
  const registry = new ToolRegistry();
  registry.register(defaultToolRegistry.get('bash')!);
  // A tool with the default traits of an unknown one: every call asks.
  registry.register(makeTool({ name: 'risky', traits: undefined }));

  const call = (method: string, path: string, token: string, body?: unknown) =>
    app.handle(
      new Request(`http://localhost${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  const json = async (method: string, path: string, body?: unknown, token = alice) => {
    const response = await call(method, path, token, body);
    const text = await response.text();
    return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
  };

  /** Starts a turn and reads its stream up to the first event `until` accepts. */
  async function startUntil(chatId: string, message: string, until: (event: Event) => boolean) {
    const response = await call('POST', `/api/chats/${chatId}/turns`, alice, { message });
    expect(response.status).toBe(200);
    const stream = readSseEvents(response);
    const seen: Event[] = [];
    for (;;) {
      const next = await stream.next();
      if (next.done) throw new Error(`The stream ended first: ${JSON.stringify(seen)}`);
      seen.push(next.value);
      if (until(next.value)) break;
    }
    const rest = async () => {
      for await (const event of stream) seen.push(event);
      return seen;
    };
    return { seen, rest };
  }
  const requested = (event: Event) => event.type === 'tool_approval_requested';

  async function newChat(): Promise<string> {
    const created = await json('POST', '/api/chats', {
      provider: 'openai',
      model: 'm',
      workingDirectory: root,
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  const bashCall = (id: string, command: string) => ({ id, name: 'bash', arguments: { command } });
  const bashSettings = async () =>
    ((await json('GET', '/api/settings/tools')).body.tools as { name: string; parameters: Event }[]).find(
      (tool) => tool.name === 'bash',
    )!.parameters;

  beforeAll(async () => {
    handle = await createTestDatabase(backend);
    root = await realpath(await mkdtemp(join(tmpdir(), 'mango-approvals-')));
    // The shell sandbox's uid must be able to reach the working directory (mkdtemp makes it 0700).
    await chmod(root, 0o755);
    deps = createAppDependencies({
      config: handle.config,
      database: handle.database,
      registry,
      now: () => FIXED_NOW,
      providers: createStubProviderRegistry({ openai: provider }),
      log: () => {},
      approvalTimers: timers.timers,
    });
    app = createApp(deps);
    const created = await deps.users.create('alice');
    alice = created.token;
    bob = (await deps.users.create('bob')).token;
    await deps.workspaces.grant(created.user.id, root, false);
    expect((await json('PUT', '/api/settings/tools/bash', { enabled: true })).status).toBe(200);
  });
  afterAll(async () => {
    await handle.dispose();
    await rm(root, { recursive: true, force: true });
  });

  test('approve: the question is streamed, listed, replayed, and the approved command runs', async () => {
    const chatId = await newChat();
    slot.provider = new ScriptedProvider([
      toolCallsResponse([bashCall('b1', 'echo approved-run')]),
      textResponse('Ran it.'),
    ]);
    const turn = await startUntil(chatId, 'Run it.', requested);
    const question = turn.seen.at(-1)!;
    expect(question).toEqual({
      type: 'tool_approval_requested',
      callId: 'b1',
      name: 'bash',
      arguments: { command: 'echo approved-run' },
      reason: 'bash asks before every call ("approval" is "always").',
      expiresAt: new Date(FIXED_NOW + 600_000).toISOString(),
    });

    const current = await json('GET', `/api/chats/${chatId}/turns/current`);
    expect(current.status).toBe(200);
    expect(current.body.state).toBe('running');
    expect(current.body.pendingApprovals).toEqual([
      {
        callId: 'b1',
        name: 'bash',
        arguments: { command: 'echo approved-run' },
        reason: 'bash asks before every call ("approval" is "always").',
        requestedAt: new Date(FIXED_NOW).toISOString(),
        expiresAt: new Date(FIXED_NOW + 600_000).toISOString(),
      },
    ]);
    // A client that re-attaches sees the question in the replay.
    const replay = readSseEvents(
      await call('GET', `/api/chats/${chatId}/turns/current/events?after=0`, alice),
    );
    const replayed: Event[] = [];
    for await (const event of replay) {
      replayed.push(event);
      if (requested(event)) break;
    }
    await replay.return(undefined);
    expect(replayed.at(-1)).toEqual(question);

    expect(await json('POST', `/api/chats/${chatId}/approvals/b1`, { decision: 'approve' })).toEqual({
      status: 200,
      body: { callId: 'b1', decision: 'approve' },
    });
    const events = await turn.rest();
    const tail = events.filter((event) =>
      ['tool_approval_resolved', 'tool_result', 'done'].includes(String(event.type)),
    );
    expect(tail[0]).toEqual({
      type: 'tool_approval_resolved',
      callId: 'b1',
      name: 'bash',
      decision: 'approved',
      by: 'user',
    });
    expect(tail[1]).toMatchObject({
      type: 'tool_result',
      callId: 'b1',
      ok: true,
      result: { stdout: 'approved-run\n' },
    });
    expect(tail[2]).toEqual({ type: 'done', reason: 'completed' });
    expect((await json('GET', `/api/chats/${chatId}/turns/current`)).body.pendingApprovals).toEqual([]);
    // Answered once: a second answer is a conflict.
    expect(await json('POST', `/api/chats/${chatId}/approvals/b1`, { decision: 'deny' })).toEqual({
      status: 409,
      body: {
        error: 'The call "b1" (bash) no longer waits for approval: it was already approved.',
        code: 'approval_closed',
      },
    });
  }, 30_000);

  test('deny with a reason: the model receives the reason in the call result', async () => {
    const chatId = await newChat();
    slot.provider = new ScriptedProvider([
      toolCallsResponse([bashCall('b2', 'rm -rf build')]),
      textResponse('Understood.'),
    ]);
    const turn = await startUntil(chatId, 'Clean up.', requested);
    expect(
      await json('POST', `/api/chats/${chatId}/approvals/b2`, {
        decision: 'deny',
        reason: 'Keep the build.',
      }),
    ).toEqual({ status: 200, body: { callId: 'b2', decision: 'deny', reason: 'Keep the build.' } });
    const events = await turn.rest();
    expect(events.find((event) => event.type === 'tool_approval_resolved')).toEqual({
      type: 'tool_approval_resolved',
      callId: 'b2',
      name: 'bash',
      decision: 'denied',
      by: 'user',
      reason: 'Keep the build.',
    });
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
      ok: false,
      error: { classification: 'denied', message: 'The user denied this call: Keep the build.' },
    });
    const sent = slot.provider.requests[1]!.history.at(-1);
    expect(sent).toEqual({
      type: 'tool_result',
      callId: 'b2',
      name: 'bash',
      ok: false,
      output: JSON.stringify({
        error: { classification: 'denied', message: 'The user denied this call: Keep the build.' },
      }),
    });
  }, 30_000);

  test('timeout: an unanswered call is denied after approvalTimeoutSeconds, and a late answer is 409', async () => {
    const chatId = await newChat();
    expect(
      (await json('PUT', '/api/settings/tools/risky', { parameters: { approvalTimeoutSeconds: 10 } })).status,
    ).toBe(200);
    slot.provider = new ScriptedProvider([
      toolCallsResponse([{ id: 'r1', name: 'risky', arguments: { value: 'x' } }]),
      textResponse('Nobody answered.'),
    ]);
    const before = timers.pending.length;
    const turn = await startUntil(chatId, 'Try.', requested);
    expect(turn.seen.at(-1)!.expiresAt).toBe(new Date(FIXED_NOW + 10_000).toISOString());
    const timer = timers.pending
      .slice(before)
      .find((entry) => entry.milliseconds === 10_000 && !entry.cleared);
    expect(timer).toBeDefined();
    timer!.callback();
    const events = await turn.rest();
    expect(events.find((event) => event.type === 'tool_approval_resolved')).toEqual({
      type: 'tool_approval_resolved',
      callId: 'r1',
      name: 'risky',
      decision: 'denied',
      by: 'timeout',
    });
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
      ok: false,
      error: {
        classification: 'denied',
        message:
          'Nobody answered the approval question within 10 seconds (approvalTimeoutSeconds), so the call was denied and not run.',
      },
    });
    expect(await json('POST', `/api/chats/${chatId}/approvals/r1`, { decision: 'approve' })).toEqual({
      status: 409,
      body: {
        error:
          'The call "r1" (risky) no longer waits for approval: nobody answered in time, so it was denied.',
        code: 'approval_closed',
      },
    });
  }, 30_000);

  test('cancel while waiting: the call is cancelled and the turn ends cancelled', async () => {
    const chatId = await newChat();
    slot.provider = new ScriptedProvider([toolCallsResponse([bashCall('b3', 'echo never')])]);
    const turn = await startUntil(chatId, 'Go.', requested);
    expect(await json('POST', `/api/chats/${chatId}/cancel`)).toEqual({
      status: 200,
      body: { cancelled: true },
    });
    const events = await turn.rest();
    expect(events.slice(events.findIndex(requested) + 1)).toEqual([
      { type: 'tool_approval_resolved', callId: 'b3', name: 'bash', decision: 'denied', by: 'cancel' },
      {
        type: 'tool_result',
        callId: 'b3',
        name: 'bash',
        durationMs: 0,
        ok: false,
        error: {
          classification: 'cancelled',
          message: 'The turn was cancelled while the call waited for approval.',
        },
      },
      { type: 'done', reason: 'cancelled', message: 'The turn was cancelled.' },
    ]);
    expect((await json('POST', `/api/chats/${chatId}/approvals/b3`, { decision: 'approve' })).status).toBe(
      409,
    );
  }, 30_000);

  test('a matching prefix rule runs the command without a question; a compound command is still asked', async () => {
    expect(
      (
        await json('PUT', '/api/settings/tools/bash', {
          parameters: { autoApprovedCommands: ['echo rule-ok'] },
        })
      ).status,
    ).toBe(200);
    const chatId = await newChat();
    slot.provider = new ScriptedProvider([
      toolCallsResponse([bashCall('b4', 'echo rule-ok --flag')]),
      toolCallsResponse([bashCall('b5', 'echo rule-ok; echo sneaky')]),
      textResponse('Done.'),
    ]);
    const turn = await startUntil(chatId, 'Go.', requested);
    expect(turn.seen.filter((event) => event.type === 'tool_result')).toMatchObject([
      { callId: 'b4', ok: true, result: { stdout: 'rule-ok --flag\n' } },
    ]);
    expect(turn.seen.filter(requested).map((event) => event.callId)).toEqual(['b5']);
    expect(String(turn.seen.at(-1)!.reason)).toStartWith(
      'bash asks before every call ("approval" is "always"). No auto-approve rule matched: ',
    );
    await json('POST', `/api/chats/${chatId}/approvals/b5`, { decision: 'deny' });
    expect((await turn.rest()).at(-1)).toEqual({ type: 'done', reason: 'completed' });
    await json('PUT', '/api/settings/tools/bash', { parameters: { autoApprovedCommands: [] } });
  }, 30_000);

  test('remember adds the exact command: the settings show it and the next identical call is not asked', async () => {
    const chatId = await newChat();
    slot.provider = new ScriptedProvider([
      toolCallsResponse([bashCall('b6', '  echo remembered  ')]),
      toolCallsResponse([bashCall('b7', 'echo remembered')]),
      textResponse('Twice.'),
    ]);
    const turn = await startUntil(chatId, 'Twice.', requested);
    expect(
      await json('POST', `/api/chats/${chatId}/approvals/b6`, { decision: 'approve', remember: true }),
    ).toEqual({
      status: 200,
      body: {
        callId: 'b6',
        decision: 'approve',
        remembered: { setting: 'autoApprovedExactCommands', rule: 'echo remembered' },
      },
    });
    const events = await turn.rest();
    expect(events.filter(requested).map((event) => event.callId)).toEqual(['b6']);
    expect(
      events.filter((event) => event.type === 'tool_result').map((event) => [event.callId, event.ok]),
    ).toEqual([
      ['b6', true],
      ['b7', true],
    ]);
    expect((await bashSettings()).autoApprovedExactCommands).toEqual(['echo remembered']);

    // A later turn reads the saved rule.
    slot.provider = new ScriptedProvider([
      toolCallsResponse([bashCall('b8', 'echo remembered')]),
      textResponse('ok'),
    ]);
    const later = await collectSseEvents(
      await call('POST', `/api/chats/${chatId}/turns`, alice, { message: 'Again.' }),
    );
    expect(later.filter(requested)).toEqual([]);
    expect(later.find((event) => event.type === 'tool_result')).toMatchObject({ callId: 'b8', ok: true });
  }, 30_000);

  test('rememberPrefix adds a prefix rule; one that does not parse or is not a word prefix is 422', async () => {
    const chatId = await newChat();
    slot.provider = new ScriptedProvider([
      toolCallsResponse([bashCall('b9', 'echo prefix-one two')]),
      toolCallsResponse([bashCall('b10', 'echo prefix-one three')]),
      textResponse('ok'),
    ]);
    const turn = await startUntil(chatId, 'Go.', requested);
    const answer = (body: unknown) => json('POST', `/api/chats/${chatId}/approvals/b9`, body);
    expect(await answer({ decision: 'approve', rememberPrefix: 'echo $HOME' })).toEqual({
      status: 422,
      body: {
        error: `rememberPrefix "echo $HOME" is not a plain command prefix (${unparsable('echo $HOME')}); use literal words only.`,
        code: 'invalid_request',
      },
    });
    expect(await answer({ decision: 'approve', rememberPrefix: 'echo prefix' })).toEqual({
      status: 422,
      body: {
        error: 'rememberPrefix "echo prefix" is not a word prefix of the command "echo prefix-one two".',
        code: 'invalid_request',
      },
    });
    expect(await answer({ decision: 'deny', remember: true })).toEqual({
      status: 422,
      body: {
        error: 'remember and rememberPrefix apply only to an approval (decision "approve"), not to a deny.',
        code: 'invalid_request',
      },
    });
    expect((await answer({ decision: 'maybe' })).status).toBe(400);
    expect((await answer({ decision: 'deny', reason: 'x'.repeat(2001) })).status).toBe(422);
    // Nothing was written by the refused answers: the call still waits.
    expect((await json('GET', `/api/chats/${chatId}/turns/current`)).body.pendingApprovals).toHaveLength(1);
    expect(await answer({ decision: 'approve', rememberPrefix: ' echo prefix-one ' })).toEqual({
      status: 200,
      body: {
        callId: 'b9',
        decision: 'approve',
        remembered: { setting: 'autoApprovedCommands', rule: 'echo prefix-one' },
      },
    });
    const events = await turn.rest();
    expect(events.filter(requested).map((event) => event.callId)).toEqual(['b9']);
    expect((await bashSettings()).autoApprovedCommands).toEqual(['echo prefix-one']);
    await json('PUT', '/api/settings/tools/bash', { parameters: { autoApprovedCommands: [] } });
  }, 30_000);

  test('404 for an unknown call or another user’s chat; 422 for remember on a tool without command rules', async () => {
    const chatId = await newChat();
    slot.provider = new ScriptedProvider([
      toolCallsResponse([{ id: 'r2', name: 'risky', arguments: {} }]),
      textResponse('ok'),
    ]);
    const turn = await startUntil(chatId, 'Go.', requested);
    expect(await json('POST', `/api/chats/${chatId}/approvals/nope`, { decision: 'approve' })).toEqual({
      status: 404,
      body: { error: `No call "nope" is waiting for approval in chat ${chatId}.`, code: 'not_found' },
    });
    expect(await json('POST', `/api/chats/${chatId}/approvals/r2`, { decision: 'approve' }, bob)).toEqual({
      status: 404,
      body: { error: `No chat with id ${chatId}.`, code: 'not_found' },
    });
    expect(
      await json('POST', `/api/chats/${chatId}/approvals/r2`, { decision: 'approve', remember: true }),
    ).toEqual({
      status: 422,
      body: {
        error: 'remember and rememberPrefix apply only to bash and zsh commands; risky has no command rules.',
        code: 'invalid_request',
      },
    });
    expect((await json('POST', `/api/chats/${chatId}/approvals/r2`, { decision: 'approve' })).status).toBe(
      200,
    );
    expect((await turn.rest()).at(-1)).toEqual({ type: 'done', reason: 'completed' });
  }, 30_000);
});
