/**
 * Scripted model responses in each provider's own streaming wire format, to serve from the replay server
 * (`replay-server.ts`): `responsesBody`, `chatBody`, `anthropicBody`, `geminiBody` each turn one
 * `ScriptedTurn` — optional reasoning, optional text, tool calls with their argument fragments, optionally
 * cut inside the last call — into the SSE body of one streamed response. A chat-loop test scripts a model
 * that calls `grep`, then `read_file`, then answers, as three turns enqueued in order.
 */
import { sseFromEvents } from './replay-server.ts';

export interface ScriptedCall {
  id: string;
  name: string;
  /** Argument fragments as streamed. */
  fragments: string[];
}

export interface ScriptedTurn {
  reasoning?: string;
  text?: string;
  calls?: ScriptedCall[];
  /** Leave the last call open and end the body there (a cut stream). */
  cutInLastCall?: boolean;
}

export function responsesBody(turn: ScriptedTurn, responseId = 'resp_1'): string {
  const events: unknown[] = [
    {
      type: 'response.created',
      sequence_number: 0,
      response: { id: responseId, status: 'in_progress', output: [] },
    },
  ];
  let outputIndex = 0;
  if (turn.reasoning) {
    const item = {
      id: `rs_${responseId}`,
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: turn.reasoning }],
      encrypted_content: `enc:${turn.reasoning}`,
    };
    events.push({
      type: 'response.output_item.added',
      output_index: outputIndex,
      item: { ...item, encrypted_content: null },
    });
    events.push({ type: 'response.output_item.done', output_index: outputIndex, item });
    outputIndex += 1;
  }
  if (turn.text) {
    const item = {
      id: `msg_${responseId}`,
      type: 'message',
      role: 'assistant',
      status: 'in_progress',
      content: [],
    };
    events.push({ type: 'response.output_item.added', output_index: outputIndex, item });
    events.push({
      type: 'response.output_text.delta',
      item_id: item.id,
      output_index: outputIndex,
      content_index: 0,
      delta: turn.text,
    });
    events.push({
      type: 'response.output_item.done',
      output_index: outputIndex,
      item: {
        ...item,
        status: 'completed',
        content: [{ type: 'output_text', text: turn.text, annotations: [] }],
      },
    });
    outputIndex += 1;
  }
  const calls = turn.calls ?? [];
  calls.forEach((call, position) => {
    const itemId = `fc_${call.id}`;
    const base = { id: itemId, type: 'function_call', call_id: call.id, name: call.name };
    events.push({
      type: 'response.output_item.added',
      output_index: outputIndex,
      item: { ...base, arguments: '', status: 'in_progress' },
    });
    for (const fragment of call.fragments) {
      events.push({
        type: 'response.function_call_arguments.delta',
        item_id: itemId,
        output_index: outputIndex,
        delta: fragment,
      });
    }
    const cut = turn.cutInLastCall && position === calls.length - 1;
    if (!cut) {
      const args = call.fragments.join('');
      events.push({
        type: 'response.function_call_arguments.done',
        item_id: itemId,
        output_index: outputIndex,
        arguments: args,
      });
      events.push({
        type: 'response.output_item.done',
        output_index: outputIndex,
        item: { ...base, arguments: args, status: 'completed' },
      });
    }
    outputIndex += 1;
  });
  if (!turn.cutInLastCall) {
    events.push({
      type: 'response.completed',
      response: {
        id: responseId,
        status: 'completed',
        output: [],
        usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 },
      },
    });
  }
  return sseFromEvents(events, { eventName: 'type' });
}

/** Chat Completions chunks: calls by index, the id and name on the first chunk only. */
export function chatBody(turn: ScriptedTurn, options: { omitIds?: boolean } = {}): string {
  const chunk = (delta: unknown, finishReason: string | null = null) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'test-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  const events: unknown[] = [chunk({ role: 'assistant', content: '' })];
  if (turn.reasoning) events.push(chunk({ reasoning_content: turn.reasoning }));
  if (turn.text) events.push(chunk({ content: turn.text }));
  (turn.calls ?? []).forEach((call, index) => {
    call.fragments.forEach((fragment, position) => {
      const first = position === 0;
      events.push(
        chunk({
          tool_calls: [
            {
              index,
              ...(first && !options.omitIds ? { id: call.id, type: 'function' } : {}),
              function: { ...(first ? { name: call.name } : {}), arguments: fragment },
            },
          ],
        }),
      );
    });
    if (call.fragments.length === 0) {
      events.push(
        chunk({
          tool_calls: [
            {
              index,
              ...(options.omitIds ? {} : { id: call.id }),
              function: { name: call.name, arguments: '' },
            },
          ],
        }),
      );
    }
  });
  if (turn.cutInLastCall) return sseFromEvents(events);
  events.push(chunk({}, (turn.calls ?? []).length > 0 ? 'tool_calls' : 'stop'));
  events.push({
    ...(chunk({}) as object),
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
  return sseFromEvents(events, { done: true });
}

export function anthropicBody(turn: ScriptedTurn): string {
  const events: unknown[] = [
    {
      type: 'message_start',
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'test-model',
        content: [],
        stop_reason: null,
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    },
  ];
  let index = 0;
  if (turn.reasoning) {
    events.push({
      type: 'content_block_start',
      index,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    events.push({
      type: 'content_block_delta',
      index,
      delta: { type: 'thinking_delta', thinking: turn.reasoning },
    });
    events.push({
      type: 'content_block_delta',
      index,
      delta: { type: 'signature_delta', signature: `sig:${turn.reasoning}` },
    });
    events.push({ type: 'content_block_stop', index });
    index += 1;
  }
  if (turn.text) {
    events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: turn.text } });
    events.push({ type: 'content_block_stop', index });
    index += 1;
  }
  const calls = turn.calls ?? [];
  calls.forEach((call, position) => {
    events.push({
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    });
    for (const fragment of call.fragments) {
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: fragment },
      });
    }
    if (!(turn.cutInLastCall && position === calls.length - 1))
      events.push({ type: 'content_block_stop', index });
    index += 1;
  });
  if (!turn.cutInLastCall) {
    events.push({
      type: 'message_delta',
      delta: { stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: 5 },
    });
    events.push({ type: 'message_stop' });
  }
  return sseFromEvents(events, { eventName: 'type' });
}

export function geminiBody(turn: ScriptedTurn, interactionId = 'v1_interaction'): string {
  const events: unknown[] = [
    { event_type: 'interaction.created', interaction: { id: interactionId, status: 'in_progress' } },
  ];
  let index = 0;
  if (turn.reasoning) {
    events.push({ event_type: 'step.start', index, step: { type: 'thought' } });
    events.push({
      event_type: 'step.delta',
      index,
      delta: { type: 'thought_signature', signature: `sig:${turn.reasoning}` },
    });
    events.push({ event_type: 'step.stop', index });
    index += 1;
  }
  if (turn.text) {
    events.push({ event_type: 'step.start', index, step: { type: 'model_output' } });
    events.push({ event_type: 'step.delta', index, delta: { type: 'text', text: turn.text } });
    events.push({ event_type: 'step.stop', index });
    index += 1;
  }
  const calls = turn.calls ?? [];
  calls.forEach((call, position) => {
    events.push({
      event_type: 'step.start',
      index,
      step: {
        type: 'function_call',
        id: call.id,
        name: call.name,
        arguments: {},
        signature: position === 0 ? `callsig:${call.id}` : '',
      },
    });
    for (const fragment of call.fragments) {
      events.push({
        event_type: 'step.delta',
        index,
        delta: { type: 'arguments_delta', arguments: fragment },
      });
    }
    if (!(turn.cutInLastCall && position === calls.length - 1))
      events.push({ event_type: 'step.stop', index });
    index += 1;
  });
  if (!turn.cutInLastCall) {
    events.push({
      event_type: 'interaction.completed',
      interaction: {
        id: interactionId,
        status: calls.length > 0 ? 'requires_action' : 'completed',
        usage: { total_input_tokens: 10, total_output_tokens: 5 },
      },
    });
  }
  return sseFromEvents(events);
}

/** A Chat Completions answer streamed as `pieces`, one content delta each, then `stop`. */
export function chatTextDeltasBody(pieces: readonly string[]): string {
  const chunk = (delta: unknown, finishReason: string | null = null) => ({
    id: 'chatcmpl-deltas',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'test-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  return sseFromEvents(
    [
      chunk({ role: 'assistant', content: '' }),
      ...pieces.map((content) => chunk({ content })),
      chunk({}, 'stop'),
    ],
    { done: true },
  );
}
