/**
 * Approval timeouts and rules across two real `mango serve` processes sharing one database (SQLite file,
 * PostgreSQL), the model played by a replay server, the real bash tool in its sandbox; every question is
 * asked by the turn on A and every answer and setting goes through B:
 * - an unanswered question is denied after `approvalTimeoutSeconds` (10 s, the minimum; both backends
 *   wait at the same time), the model's next request carries the denial, and a later answer is 409;
 * - an `autoApprovedCommands` rule saved through B runs a matching command on A without a question, and
 *   a compound one is still asked;
 * - `remember` through B saves the exact command, B's settings show it, and the next identical call in a
 *   new turn on A is not asked (a longer one still is);
 * - a table of compound and expanded commands, every one asked about under the rule `echo`, all denied
 *   through B, none run.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import {
  type ApprovalServers,
  type ServerEvent as Event,
  startApprovalServers,
  waitForQuestion,
} from '../helpers/approval-servers.ts';
import type { ChatApi } from '../helpers/chat-api-client.ts';
import { chatBody } from '../helpers/scripted-provider-streams.ts';
import { readSseEvents } from '../helpers/sse-client.ts';
import { BACKENDS, type Backend } from '../helpers/test-database.ts';

const LEASE_MS = 2_000;
const ASKS = 'bash asks before every call ("approval" is "always").';
const setups = new Map<Backend, ApprovalServers>();
const setupOf = (backend: Backend) => setups.get(backend)!;

const bashCall = (id: string, command: string) => ({
  id,
  name: 'bash',
  fragments: [JSON.stringify({ command })],
});

const deniedResult = (callId: string, name: string, message: string) => ({
  type: 'tool_result',
  callId,
  name,
  durationMs: 0,
  ok: false,
  error: { classification: 'denied', message },
});

/** What the model was sent for each tool result in its latest request, parsed. */
function lastToolMessages(setup: ApprovalServers): unknown[] {
  const body = setup.replay.requests.at(-1)!.body as { messages: { role: string; content?: unknown }[] };
  return body.messages
    .filter((message) => message.role === 'tool')
    .map((message) => JSON.parse(String(message.content)));
}

async function putBash(api: ChatApi, parameters: Record<string, unknown>) {
  const saved = await api.json('PUT', '/api/settings/tools/bash', { parameters });
  expect(saved.status).toBe(200);
  return (saved.body as { parameters: Record<string, unknown> }).parameters;
}

async function drain(stream: AsyncGenerator<Event>): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

beforeAll(async () => {
  const started = await Promise.all(
    BACKENDS.map(async (backend) => [backend, await startApprovalServers(backend, LEASE_MS)] as const),
  );
  for (const [backend, setup] of started) {
    setups.set(backend, setup);
    // Shells are off by default; `locked` (a test tool) asks before each call and gives up after 10 s.
    expect((await setup.a.json('PUT', '/api/settings/tools/bash', { enabled: true })).status).toBe(200);
    const locked = await setup.a.json('PUT', '/api/settings/tools/locked', {
      parameters: { approval: 'always', approvalTimeoutSeconds: 10 },
    });
    expect(locked.status).toBe(200);
  }
}, 90_000);

afterAll(async () => {
  await Promise.all([...setups.values()].map((setup) => setup.close()));
});

test('timeout, both backends at once: nobody answers, the call is denied after 10 s, the model reads why, and a later answer through B is 409', async () => {
  const message =
    'Nobody answered the approval question within 10 seconds (approvalTimeoutSeconds), so the call was denied and not run.';
  await Promise.all(
    BACKENDS.map(async (backend) => {
      const setup = setupOf(backend);
      const chatId = await setup.a.createChat();
      setup.replay.enqueue(
        { body: chatBody({ calls: [{ id: 't1', name: 'locked', fragments: ['{"value":"late"}'] }] }) },
        { body: chatBody({ text: 'Nobody answered.' }) },
      );
      const onA = readSseEvents(await setup.a.call('POST', `/api/chats/${chatId}/turns`, { message: 'Go.' }));
      const question = await waitForQuestion(onA);
      const askedAt = performance.now();
      expect(question).toMatchObject({
        callId: 't1',
        name: 'locked',
        reason: 'locked asks before every call ("approval" is "always").',
      });
      const pending = await setup.b.json('GET', `/api/chats/${chatId}/turns/current`);
      expect((pending.body as { pendingApprovals: Event[] }).pendingApprovals).toMatchObject([
        { callId: 't1', expiresAt: question.expiresAt },
      ]);
      const rest = await drain(onA);
      // A lower bound only: the question event arrives a little after the wait began.
      expect(performance.now() - askedAt).toBeGreaterThan(9_000);
      expect(rest.slice(0, 2)).toEqual([
        { type: 'tool_approval_resolved', callId: 't1', name: 'locked', decision: 'denied', by: 'timeout' },
        deniedResult('t1', 'locked', message),
      ]);
      expect(rest.at(-1)).toEqual({ type: 'done', reason: 'completed' });
      expect(lastToolMessages(setup)).toEqual([{ error: { classification: 'denied', message } }]);
      expect(
        await setup.b.json('POST', `/api/chats/${chatId}/approvals/t1`, { decision: 'approve' }),
      ).toEqual({
        status: 409,
        body: {
          error:
            'The call "t1" (locked) no longer waits for approval: nobody answered in time, so it was denied.',
          code: 'approval_closed',
        },
      });
      expect(setup.replay.failures).toEqual([]);
    }),
  );
}, 60_000);

// label, command, why the rule `echo` does not match (the shell grammar's own words)
const MUST_ASK: [string, string, string][] = [
  ['semicolon', 'echo hi; id', 'operator ";"'],
  ['and list', 'echo hi && id', 'operator "&&"'],
  ['or list', 'echo hi || id', 'operator "||"'],
  ['pipe', 'echo hi | sh', 'operator "|"'],
  ['background', 'echo hi & id', 'operator "&"'],
  ['newline', 'echo hi\nid', 'newline'],
  ['output redirection', 'echo hi > out.txt', 'redirection ">"'],
  ['here-document', 'echo hi <<EOF', 'here-document'],
  ['command substitution', 'echo $(id)', 'command substitution'],
  ['backticks', 'echo `id`', 'command substitution'],
  ['process substitution', 'echo <(id)', 'process substitution'],
  ['variable', 'echo $HOME', 'expansion "$HOME"'],
  ['braced variable', 'echo $' + '{HOME}', 'expansion "$' + '{HOME}"'],
  ['glob', 'echo *', 'glob "*"'],
  ['tilde', 'echo ~', 'tilde expansion'],
  ['subshell', '(echo hi)', 'subshell'],
  ['leading assignment', 'FOO=1 echo hi', 'leading assignment "FOO=1"'],
  ['a longer first word', 'echo-foo', 'no rule matches'],
];

describe.each(BACKENDS)('approval rules across two servers on %s', (backend) => {
  test('a rule saved through B: "echo hi" runs on A without a question, "echo hi; id" is asked', async () => {
    const { a, b, replay } = setupOf(backend);
    expect((await putBash(b, { autoApprovedCommands: ['echo'] })).autoApprovedCommands).toEqual(['echo']);
    const chatId = await a.createChat();
    replay.enqueue(
      { body: chatBody({ calls: [bashCall('r1', 'echo hi')] }) },
      { body: chatBody({ calls: [bashCall('r2', 'echo hi; id')] }) },
      { body: chatBody({ text: 'Done.' }) },
    );
    const onA = readSseEvents(await a.call('POST', `/api/chats/${chatId}/turns`, { message: 'Go.' }));
    const before: Event[] = [];
    const question = await waitForQuestion(onA, before);
    expect(before.filter((event) => event.type === 'tool_result')).toMatchObject([
      { callId: 'r1', ok: true, result: { stdout: 'hi\n', exitCode: 0 } },
    ]);
    expect(question).toMatchObject({
      callId: 'r2',
      arguments: { command: 'echo hi; id' },
      reason: `${ASKS} No auto-approve rule matched: operator ";".`,
    });
    expect(await b.json('POST', `/api/chats/${chatId}/approvals/r2`, { decision: 'deny' })).toEqual({
      status: 200,
      body: { callId: 'r2', decision: 'deny' },
    });
    const rest = await drain(onA);
    expect(rest.filter((event) => event.type === 'tool_approval_requested')).toEqual([]);
    expect(rest.find((event) => event.type === 'tool_result')).toEqual(
      deniedResult('r2', 'bash', 'The user denied this call.'),
    );
    expect(rest.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect(replay.failures).toEqual([]);
  }, 30_000);

  test(`the table: ${MUST_ASK.length} compound and expanded commands in one response, each asked under the rule "echo", all denied through B`, async () => {
    const { a, b, replay } = setupOf(backend);
    await putBash(b, { autoApprovedCommands: ['echo'] });
    const chatId = await a.createChat();
    const ids = MUST_ASK.map((_, index) => `c${index + 1}`);
    replay.enqueue(
      { body: chatBody({ calls: MUST_ASK.map(([, command], index) => bashCall(ids[index]!, command)) }) },
      { body: chatBody({ text: 'None ran.' }) },
    );
    const onA = readSseEvents(await a.call('POST', `/api/chats/${chatId}/turns`, { message: 'Try all.' }));
    const events: Event[] = [];
    const asked: [string, string, string][] = [];
    for (const callId of ids) {
      const question = await waitForQuestion(onA, events);
      const command = (question.arguments as { command: string }).command;
      asked.push([String(question.callId), command, String(question.reason)]);
      expect(await b.json('POST', `/api/chats/${chatId}/approvals/${callId}`, { decision: 'deny' })).toEqual({
        status: 200,
        body: { callId, decision: 'deny' },
      });
    }
    events.push(...(await drain(onA)));
    // Asked in order, each with the grammar's reason; a mismatch names the case.
    expect(asked).toEqual(
      MUST_ASK.map(([, command, why], index) => [
        ids[index]!,
        command,
        `${ASKS} No auto-approve rule matched: ${why}.`,
      ]),
    );
    expect(events.filter((event) => event.type === 'tool_result')).toEqual(
      ids.map((callId) => deniedResult(callId, 'bash', 'The user denied this call.')),
    );
    expect(events.filter((event) => event.type === 'tool_approval_requested')).toEqual([]);
    expect(events.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect(lastToolMessages(setupOf(backend))).toEqual(
      ids.map(() => ({ error: { classification: 'denied', message: 'The user denied this call.' } })),
    );
    expect(replay.failures).toEqual([]);
  }, 60_000);

  test('remember through B saves the exact command; a new turn on A runs it unasked, a longer one is asked', async () => {
    const { a, b, replay } = setupOf(backend);
    const chatId = await a.createChat();
    replay.enqueue(
      { body: chatBody({ calls: [bashCall('m1', 'printf remembered')] }) },
      { body: chatBody({ text: 'Ran.' }) },
    );
    const first = readSseEvents(await a.call('POST', `/api/chats/${chatId}/turns`, { message: 'Once.' }));
    expect(await waitForQuestion(first)).toMatchObject({
      callId: 'm1',
      reason: `${ASKS} No auto-approve rule matched: no rule matches.`,
    });
    const remembered = { setting: 'autoApprovedExactCommands', rule: 'printf remembered' };
    expect(
      await b.json('POST', `/api/chats/${chatId}/approvals/m1`, { decision: 'approve', remember: true }),
    ).toEqual({ status: 200, body: { callId: 'm1', decision: 'approve', remembered } });
    const firstRest = await drain(first);
    expect(firstRest[0]).toEqual({
      type: 'tool_approval_resolved',
      callId: 'm1',
      name: 'bash',
      decision: 'approved',
      by: 'user',
      remembered,
    });
    expect(firstRest.find((event) => event.type === 'tool_result')).toMatchObject({
      callId: 'm1',
      ok: true,
      result: { stdout: 'remembered', exitCode: 0 },
    });
    expect(firstRest.at(-1)).toEqual({ type: 'done', reason: 'completed' });

    const listed = (await b.json('GET', '/api/settings/tools')).body as {
      tools: { name: string; parameters: Record<string, unknown> }[];
    };
    expect(listed.tools.find((tool) => tool.name === 'bash')!.parameters).toMatchObject({
      autoApprovedExactCommands: ['printf remembered'],
    });

    replay.enqueue(
      { body: chatBody({ calls: [bashCall('m2', 'printf remembered')] }) },
      { body: chatBody({ calls: [bashCall('m3', 'printf remembered twice')] }) },
      { body: chatBody({ text: 'ok' }) },
    );
    const second = readSseEvents(await a.call('POST', `/api/chats/${chatId}/turns`, { message: 'Again.' }));
    const before: Event[] = [];
    expect(await waitForQuestion(second, before)).toMatchObject({
      callId: 'm3',
      reason: `${ASKS} No auto-approve rule matched: no rule matches.`,
    });
    expect(before.filter((event) => event.type === 'tool_result')).toMatchObject([
      { callId: 'm2', ok: true, result: { stdout: 'remembered' } },
    ]);
    expect((await b.json('POST', `/api/chats/${chatId}/approvals/m3`, { decision: 'deny' })).status).toBe(
      200,
    );
    const secondRest = await drain(second);
    expect(secondRest.find((event) => event.type === 'tool_result')).toEqual(
      deniedResult('m3', 'bash', 'The user denied this call.'),
    );
    expect(secondRest.at(-1)).toEqual({ type: 'done', reason: 'completed' });
    expect(replay.failures).toEqual([]);
  }, 30_000);
});
