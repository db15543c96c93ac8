/**
 * The chat page's fold of approvals against the real chat API (in process, SQLite, the real bash tool in
 * its sandbox): a page opened while a call waits — the history before the turn, the turn record's
 * `pendingApprovals`, then the replayed stream — shows the same entries as the page that watched live
 * (the call behind the waiting one queued); and once the turn ended (one call approved with a
 * remembered rule, one denied with a reason), the transcript rebuilt from the stored messages and trace
 * equals the live one, approvals and the saved rule included.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { ChatMessage, CurrentTurn, TurnSummary } from '../../web/api-client.ts';
import type { TurnStreamEvent } from '../../web/sse-parser.ts';
import {
  applyPendingApprovals,
  applyTurnEvent,
  emptyTranscript,
  type ToolCallEntry,
  type Transcript,
} from '../../web/transcript.ts';
import { transcriptFromHistory } from '../../web/transcript-from-history.ts';
import {
  type ApiEvent,
  type ApprovalsApi,
  bashCall,
  createApprovalsApi,
  isApprovalRequest,
} from '../helpers/approvals-api.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../helpers/scripted-provider.ts';
import { readSseEvents } from '../helpers/sse-client.ts';
import { waitUntil } from '../helpers/wait-until.ts';

function fold(transcript: Transcript, events: readonly ApiEvent[]): Transcript {
  for (const event of events) applyTurnEvent(transcript, event as TurnStreamEvent);
  return transcript;
}

describe('approvals in the transcript after a reload', () => {
  let api: ApprovalsApi;
  beforeAll(async () => {
    api = await createApprovalsApi('sqlite');
  }, 30_000);
  afterAll(() => api.dispose());

  /** What the page builds when it opens the chat now: as `chat-view.ts` does, without the DOM. */
  async function openedNow(chatId: string, untilCallId: string): Promise<Transcript> {
    const chat = (await api.json('GET', `/api/chats/${chatId}`)).body as {
      messages: ChatMessage[];
      turns: TurnSummary[];
    };
    const current = (await api.json('GET', `/api/chats/${chatId}/turns/current`)).body as CurrentTurn;
    expect(current.state).toBe('running');
    const before = chat.messages.filter((message) => (message.seq ?? 0) <= current.messageSeqAtStart + 1);
    const transcript = transcriptFromHistory(before, chat.turns);
    applyPendingApprovals(transcript, current.pendingApprovals ?? []);
    transcript.running = true;
    const replay = readSseEvents(
      await api.call('GET', `/api/chats/${chatId}/turns/current/events?after=0`, api.alice),
    );
    for await (const event of replay) {
      applyTurnEvent(transcript, event as TurnStreamEvent);
      if (isApprovalRequest(event) && event.callId === untilCallId) break;
    }
    await replay.return(undefined);
    return transcript;
  }

  test('opened while waiting it reads as live; after the turn, approve and deny read as live too', async () => {
    const chatId = await api.newChat();
    api.slot.provider = new ScriptedProvider([
      toolCallsResponse(
        [bashCall('b1', 'echo first'), { id: 'r1', name: 'risky', arguments: {} }],
        'Two steps.',
      ),
      textResponse('One ran, one was denied.'),
    ]);
    const live = emptyTranscript();
    live.entries.push({ kind: 'user', text: 'Do both' });
    live.running = true;

    const turn = await api.startUntil(chatId, 'Do both', isApprovalRequest);
    fold(live, turn.seen);
    expect(
      live.entries.map((entry) => (entry.kind === 'tool' ? `${entry.callId} ${entry.status}` : entry.kind)),
    ).toEqual(['user', 'assistant', 'b1 waiting', 'r1 queued']);
    expect((await openedNow(chatId, 'b1')).entries).toEqual(live.entries);

    expect(
      (await api.json('POST', `/api/chats/${chatId}/approvals/b1`, { decision: 'approve', remember: true }))
        .status,
    ).toBe(200);
    // The second call waits behind the first; read on to its question.
    const seenBefore = turn.seen.length;
    const rest = turn.rest();
    const secondWaits = async () => {
      const current = (await api.json('GET', `/api/chats/${chatId}/turns/current`)).body as CurrentTurn;
      return (current.pendingApprovals ?? []).some((entry) => entry.callId === 'r1');
    };
    expect(await waitUntil(secondWaits, 5_000)).toBe(true);
    const reopened = await openedNow(chatId, 'r1');
    expect(
      reopened.entries.map((entry) =>
        entry.kind === 'tool' ? `${entry.callId} ${entry.status}` : entry.kind,
      ),
    ).toEqual(['user', 'assistant', 'b1 succeeded', 'r1 waiting']);

    expect(
      (await api.json('POST', `/api/chats/${chatId}/approvals/r1`, { decision: 'deny', reason: 'not today' }))
        .status,
    ).toBe(200);
    const events = await rest;
    fold(live, events.slice(seenBefore));
    expect(live.doneReason).toBe('completed');

    const stored = (await api.json('GET', `/api/chats/${chatId}`)).body as {
      messages: ChatMessage[];
      turns: TurnSummary[];
    };
    const reloaded = transcriptFromHistory(stored.messages, stored.turns);
    expect(reloaded.entries).toEqual(live.entries);
    const [approved, denied] = reloaded.entries.filter(
      (entry): entry is ToolCallEntry => entry.kind === 'tool',
    );
    expect(approved).toMatchObject({
      callId: 'b1',
      status: 'succeeded',
      approval: {
        decision: 'approved',
        by: 'user',
        remembered: { setting: 'autoApprovedExactCommands', rule: 'echo first' },
      },
    });
    expect(denied).toMatchObject({
      callId: 'r1',
      status: 'failed',
      error: { classification: 'denied', message: 'The user denied this call: not today' },
      approval: { decision: 'denied', by: 'user', denialReason: 'not today' },
    });
  });
});
