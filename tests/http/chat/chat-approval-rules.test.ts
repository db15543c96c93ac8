/**
 * Approval rules and answers through the chat API in process, on SQLite and PostgreSQL, with the real
 * bash tool: an auto-approve prefix rule runs a matching command without a question (a compound one is
 * still asked); `remember` and `rememberPrefix` write the rule to the user's settings and the rest of the
 * turn (and later turns) apply it, and the stream's `tool_approval_resolved` and the turn's stored
 * trace carry the rule; the route's 404 and 422 answers, none of which writes anything.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parseSimpleCommand } from '../../../src/tools/shell/command-approval-rules.ts';
import {
  type ApprovalsApi,
  bashCall,
  createApprovalsApi,
  isApprovalRequest as requested,
} from '../../helpers/approvals-api.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../../helpers/scripted-provider.ts';
import { collectSseEvents } from '../../helpers/sse-client.ts';
import { BACKENDS } from '../../helpers/test-database.ts';

/** Why the shell grammar refuses `command` (its own wording, so this test pins only the route's). */
function unparsable(command: string): string {
  const parsed = parseSimpleCommand(command, 'bash');
  if (parsed.ok) throw new Error(`${command} parses`);
  return parsed.reason;
}

describe.each(BACKENDS)('approval rules through the chat API on %s', (backend) => {
  let api: ApprovalsApi;
  beforeAll(async () => {
    api = await createApprovalsApi(backend);
  }, 30_000);
  afterAll(() => api.dispose());

  test('a matching prefix rule runs the command without a question; a compound command is still asked', async () => {
    expect(
      (
        await api.json('PUT', '/api/settings/tools/bash', {
          parameters: { autoApprovedCommands: ['echo rule-ok'] },
        })
      ).status,
    ).toBe(200);
    const chatId = await api.newChat();
    api.slot.provider = new ScriptedProvider([
      toolCallsResponse([bashCall('b4', 'echo rule-ok --flag')]),
      toolCallsResponse([bashCall('b5', 'echo rule-ok; echo sneaky')]),
      textResponse('Done.'),
    ]);
    const turn = await api.startUntil(chatId, 'Go.', requested);
    expect(turn.seen.filter((event) => event.type === 'tool_result')).toMatchObject([
      { callId: 'b4', ok: true, result: { stdout: 'rule-ok --flag\n' } },
    ]);
    expect(turn.seen.filter(requested).map((event) => event.callId)).toEqual(['b5']);
    expect(String(turn.seen.at(-1)!.reason)).toStartWith(
      'bash asks before every call ("approval" is "always"). No auto-approve rule matched: ',
    );
    await api.json('POST', `/api/chats/${chatId}/approvals/b5`, { decision: 'deny' });
    expect((await turn.rest()).at(-1)).toEqual({ type: 'done', reason: 'completed' });
    await api.json('PUT', '/api/settings/tools/bash', { parameters: { autoApprovedCommands: [] } });
  }, 30_000);

  test('remember adds the exact command: the settings show it and the next identical call is not asked', async () => {
    const chatId = await api.newChat();
    api.slot.provider = new ScriptedProvider([
      toolCallsResponse([bashCall('b6', '  echo remembered  ')]),
      toolCallsResponse([bashCall('b7', 'echo remembered')]),
      textResponse('Twice.'),
    ]);
    const turn = await api.startUntil(chatId, 'Twice.', requested);
    expect(
      await api.json('POST', `/api/chats/${chatId}/approvals/b6`, { decision: 'approve', remember: true }),
    ).toEqual({
      status: 200,
      body: {
        callId: 'b6',
        decision: 'approve',
        remembered: { setting: 'autoApprovedExactCommands', rule: 'echo remembered' },
      },
    });
    const events = await turn.rest();
    const resolved = {
      type: 'tool_approval_resolved',
      callId: 'b6',
      name: 'bash',
      decision: 'approved',
      by: 'user',
      remembered: { setting: 'autoApprovedExactCommands', rule: 'echo remembered' },
    };
    expect(events.find((event) => event.type === 'tool_approval_resolved')).toEqual(resolved);
    // The turn's trace keeps the rule, so a reload shows it as the live stream did.
    const { turns } = (await api.json('GET', `/api/chats/${chatId}`)).body as {
      turns: { progress?: { events: { event: { type: string } }[] } }[];
    };
    expect(
      turns[0]!.progress!.events.map((entry) => entry.event).filter((event) => event.type === resolved.type),
    ).toEqual([resolved]);
    expect(events.filter(requested).map((event) => event.callId)).toEqual(['b6']);
    expect(
      events.filter((event) => event.type === 'tool_result').map((event) => [event.callId, event.ok]),
    ).toEqual([
      ['b6', true],
      ['b7', true],
    ]);
    expect((await api.bashSettings()).autoApprovedExactCommands).toEqual(['echo remembered']);

    // A later turn reads the saved rule.
    api.slot.provider = new ScriptedProvider([
      toolCallsResponse([bashCall('b8', 'echo remembered')]),
      textResponse('ok'),
    ]);
    const later = await collectSseEvents(
      await api.call('POST', `/api/chats/${chatId}/turns`, api.alice, { message: 'Again.' }),
    );
    expect(later.filter(requested)).toEqual([]);
    expect(later.find((event) => event.type === 'tool_result')).toMatchObject({ callId: 'b8', ok: true });
  }, 30_000);

  test('rememberPrefix adds a prefix rule; one that does not parse or is not a word prefix is 422', async () => {
    const chatId = await api.newChat();
    api.slot.provider = new ScriptedProvider([
      toolCallsResponse([bashCall('b9', 'echo prefix-one two')]),
      toolCallsResponse([bashCall('b10', 'echo prefix-one three')]),
      textResponse('ok'),
    ]);
    const turn = await api.startUntil(chatId, 'Go.', requested);
    const answer = (body: unknown) => api.json('POST', `/api/chats/${chatId}/approvals/b9`, body);
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
    expect((await api.json('GET', `/api/chats/${chatId}/turns/current`)).body.pendingApprovals).toHaveLength(
      1,
    );
    expect(await answer({ decision: 'approve', rememberPrefix: ' echo prefix-one ' })).toEqual({
      status: 200,
      body: {
        callId: 'b9',
        decision: 'approve',
        remembered: { setting: 'autoApprovedCommands', rule: 'echo prefix-one' },
      },
    });
    const events = await turn.rest();
    expect(events.find((event) => event.type === 'tool_approval_resolved')).toEqual({
      type: 'tool_approval_resolved',
      callId: 'b9',
      name: 'bash',
      decision: 'approved',
      by: 'user',
      remembered: { setting: 'autoApprovedCommands', rule: 'echo prefix-one' },
    });
    expect(events.filter(requested).map((event) => event.callId)).toEqual(['b9']);
    expect((await api.bashSettings()).autoApprovedCommands).toEqual(['echo prefix-one']);
    await api.json('PUT', '/api/settings/tools/bash', { parameters: { autoApprovedCommands: [] } });
  }, 30_000);

  test('404 for an unknown call or another user’s chat; 422 for remember on a tool without command rules', async () => {
    const chatId = await api.newChat();
    api.slot.provider = new ScriptedProvider([
      toolCallsResponse([{ id: 'r2', name: 'risky', arguments: {} }]),
      textResponse('ok'),
    ]);
    const turn = await api.startUntil(chatId, 'Go.', requested);
    expect(await api.json('POST', `/api/chats/${chatId}/approvals/nope`, { decision: 'approve' })).toEqual({
      status: 404,
      body: { error: `No call "nope" is waiting for approval in chat ${chatId}.`, code: 'not_found' },
    });
    expect(
      await api.json('POST', `/api/chats/${chatId}/approvals/r2`, { decision: 'approve' }, api.bob),
    ).toEqual({
      status: 404,
      body: { error: `No chat with id ${chatId}.`, code: 'not_found' },
    });
    expect(
      await api.json('POST', `/api/chats/${chatId}/approvals/r2`, { decision: 'approve', remember: true }),
    ).toEqual({
      status: 422,
      body: {
        error: 'remember and rememberPrefix apply only to bash and zsh commands; risky has no command rules.',
        code: 'invalid_request',
      },
    });
    expect(
      (await api.json('POST', `/api/chats/${chatId}/approvals/r2`, { decision: 'approve' })).status,
    ).toBe(200);
    expect((await turn.rest()).at(-1)).toEqual({ type: 'done', reason: 'completed' });
  }, 30_000);
});
