import { describe, expect, test } from 'bun:test';
import type { ConversationItem } from '../../src/contracts/conversation-item.ts';
import { INTERRUPTED_CALL_MESSAGE, repairHistory } from '../../src/model-loop/history-repair.ts';

const user = (text: string): ConversationItem => ({ type: 'user_text', text });
const assistant = (text: string): ConversationItem => ({ type: 'assistant_text', text });
const call = (callId: string): ConversationItem => ({
  type: 'tool_call',
  callId,
  name: 'grep',
  arguments: '{}',
});
const result = (callId: string): ConversationItem => ({
  type: 'tool_result',
  callId,
  name: 'grep',
  ok: true,
  output: '{}',
});
const interrupted = (callId: string): ConversationItem => ({
  type: 'tool_result',
  callId,
  name: 'grep',
  ok: false,
  output: JSON.stringify({ error: { classification: 'execution_error', message: INTERRUPTED_CALL_MESSAGE } }),
});
const reasoning: ConversationItem = { type: 'provider_item', provider: 'openai', data: { id: 'rs' } };

describe('repairHistory', () => {
  const cases: { title: string; input: ConversationItem[]; output: ConversationItem[] }[] = [
    {
      title: 'a consistent history is unchanged',
      input: [user('q'), reasoning, call('a'), call('b'), result('a'), result('b'), assistant('done')],
      output: [user('q'), reasoning, call('a'), call('b'), result('a'), result('b'), assistant('done')],
    },
    {
      title: 'a trailing call without a result gets an interrupted result',
      input: [user('q'), call('a')],
      output: [user('q'), call('a'), interrupted('a')],
    },
    {
      title: 'the missing result goes after the results of its response, before the next message',
      input: [user('q'), call('a'), call('b'), result('a'), user('next')],
      output: [user('q'), call('a'), call('b'), result('a'), interrupted('b'), user('next')],
    },
    {
      title: 'a missing result is closed before the next response starts',
      input: [user('q'), call('a'), call('b'), result('b'), call('c'), result('c')],
      output: [user('q'), call('a'), call('b'), result('b'), interrupted('a'), call('c'), result('c')],
    },
    {
      title: 'orphan and duplicate results are dropped',
      input: [user('q'), result('x'), call('a'), result('a'), result('a')],
      output: [user('q'), call('a'), result('a')],
    },
    {
      title: 'a provider item with no output after it is dropped',
      input: [user('q'), reasoning, user('again'), reasoning],
      output: [user('q'), user('again')],
    },
  ];
  for (const { title, input, output } of cases) {
    test(title, () => {
      expect(repairHistory(input)).toEqual(output);
    });
  }
});
