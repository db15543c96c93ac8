/**
 * The conformance kit's body builders: one per wire format, each turning a provider-neutral `Script`
 * (optional reasoning, text, refusal text, calls with their argument fragments, and how the response
 * ends) into the SSE body that API streams. A script a format cannot express returns `Unsupported` with
 * the reason, so the kit lists it instead of skipping it silently. Every complete response reports
 * 10 input and 5 output tokens.
 */
import { sseFromEvents } from '../../helpers/replay-server.ts';

export interface ScriptCall {
  id: string;
  name: string;
  fragments: string[];
}

export type Ending =
  | 'stop'
  | 'tool_calls'
  /** Cut by the output limit inside the last call. */
  | 'length'
  | 'refusal'
  | 'content_filter'
  /** An error event in the stream after the content. */
  | 'error'
  /** The protocol's normal end, without a finish reason. */
  | 'no_finish_reason'
  /** The body ends with no terminal event at all. */
  | 'cut';

export interface Script {
  reasoning?: string;
  text?: string;
  refusal?: string;
  calls?: ScriptCall[];
  ending: Ending;
  errorMessage?: string;
  /** Put events that carry no content (usage-only chunks, pings, status updates) among the content. */
  contentFreeEvents?: boolean;
}

export interface Unsupported {
  unsupported: string;
}

export type WireFormat = (script: Script) => string | Unsupported;

const argsOf = (call: ScriptCall): string => call.fragments.join('');

/** Whether the script leaves its last call open (cut by the output limit or by the body's end). */
const leavesOpen = (script: Script, position: number): boolean =>
  (script.ending === 'length' || script.ending === 'cut') && position === (script.calls ?? []).length - 1;

export const responsesWire: WireFormat = (script) => {
  if (script.ending === 'no_finish_reason')
    return { unsupported: 'Responses always ends with a terminal event carrying the status.' };
  const usage = { input_tokens: 10, output_tokens: 5, total_tokens: 15 };
  const events: unknown[] = [
    { type: 'response.created', response: { id: 'resp_1', status: 'in_progress', output: [] } },
  ];
  if (script.contentFreeEvents) events.push({ type: 'response.in_progress', response: { id: 'resp_1' } });
  let index = 0;
  if (script.reasoning) {
    const item = {
      id: 'rs_1',
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: script.reasoning }],
      encrypted_content: `enc:${script.reasoning}`,
    };
    events.push({
      type: 'response.output_item.added',
      output_index: index,
      item: { ...item, encrypted_content: null },
    });
    events.push({ type: 'response.output_item.done', output_index: index, item });
    index += 1;
  }
  if (script.text || script.refusal) {
    const item = { id: 'msg_1', type: 'message', role: 'assistant', status: 'in_progress', content: [] };
    events.push({ type: 'response.output_item.added', output_index: index, item });
    if (script.text)
      events.push({
        type: 'response.output_text.delta',
        item_id: 'msg_1',
        output_index: index,
        content_index: 0,
        delta: script.text,
      });
    if (script.refusal)
      events.push({
        type: 'response.refusal.delta',
        item_id: 'msg_1',
        output_index: index,
        content_index: 0,
        delta: script.refusal,
      });
    events.push({
      type: 'response.output_item.done',
      output_index: index,
      item: { ...item, status: 'completed' },
    });
    index += 1;
  }
  const calls = script.calls ?? [];
  calls.forEach((call, position) => {
    const base = { id: `fc_${call.id}`, type: 'function_call', call_id: call.id, name: call.name };
    events.push({
      type: 'response.output_item.added',
      output_index: index,
      item: { ...base, arguments: '', status: 'in_progress' },
    });
    for (const delta of call.fragments)
      events.push({
        type: 'response.function_call_arguments.delta',
        item_id: base.id,
        output_index: index,
        delta,
      });
    if (script.ending === 'cut' && leavesOpen(script, position)) return;
    events.push({
      type: 'response.output_item.done',
      output_index: index,
      item: {
        ...base,
        arguments: argsOf(call),
        status: leavesOpen(script, position) ? 'incomplete' : 'completed',
      },
    });
    index += 1;
  });
  const response = { id: 'resp_1', output: [], usage };
  switch (script.ending) {
    case 'stop':
    case 'tool_calls':
    case 'refusal':
      events.push({ type: 'response.completed', response: { ...response, status: 'completed' } });
      break;
    case 'length':
      events.push({
        type: 'response.incomplete',
        response: { ...response, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
      });
      break;
    case 'content_filter':
      events.push({
        type: 'response.incomplete',
        response: { ...response, status: 'incomplete', incomplete_details: { reason: 'content_filter' } },
      });
      break;
    case 'error':
      events.push({ type: 'error', code: 'server_error', message: script.errorMessage, param: null });
      break;
  }
  return sseFromEvents(events, { eventName: 'type' });
};

export const chatWire: WireFormat = (script) => {
  const chunk = (delta: unknown, finishReason: string | null = null) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'test-model',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
  });
  const usageChunk = {
    ...chunk({}),
    choices: [],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
  const events: unknown[] = [chunk({ role: 'assistant', content: '' })];
  if (script.contentFreeEvents) events.push({ ...chunk({}), choices: [] });
  if (script.reasoning) events.push(chunk({ reasoning_content: script.reasoning }));
  if (script.text) events.push(chunk({ content: script.text }));
  if (script.refusal) events.push(chunk({ content: null, refusal: script.refusal }));
  (script.calls ?? []).forEach((call, index) => {
    const fragments = call.fragments.length > 0 ? call.fragments : [''];
    fragments.forEach((fragment, position) => {
      const first = position === 0;
      events.push(
        chunk({
          tool_calls: [
            {
              index,
              ...(first ? { id: call.id, type: 'function' } : {}),
              function: { ...(first ? { name: call.name } : {}), arguments: fragment },
            },
          ],
        }),
      );
    });
  });
  const finish: Record<Ending, string | undefined> = {
    stop: 'stop',
    tool_calls: 'tool_calls',
    length: 'length',
    refusal: 'stop',
    content_filter: 'content_filter',
    error: undefined,
    no_finish_reason: undefined,
    cut: undefined,
  };
  if (script.ending === 'error') {
    events.push({ error: { message: script.errorMessage, type: 'server_error' } });
    return sseFromEvents(events);
  }
  if (script.ending === 'cut') return sseFromEvents(events);
  const reason = finish[script.ending];
  if (reason) events.push(chunk({}, reason));
  events.push(usageChunk);
  return sseFromEvents(events, { done: true });
};

export const anthropicWire: WireFormat = (script) => {
  if (script.ending === 'content_filter')
    return { unsupported: 'Messages has no content-filter stop; a refusal is its only safety stop.' };
  if (script.ending === 'no_finish_reason')
    return { unsupported: 'Messages always gives the stop reason in message_delta.' };
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
  if (script.contentFreeEvents) events.push({ type: 'ping' });
  let index = 0;
  const block = (contentBlock: unknown, deltas: unknown[], stop = true) => {
    events.push({ type: 'content_block_start', index, content_block: contentBlock });
    for (const delta of deltas) events.push({ type: 'content_block_delta', index, delta });
    if (stop) events.push({ type: 'content_block_stop', index });
    index += 1;
  };
  if (script.reasoning)
    block({ type: 'thinking', thinking: '', signature: '' }, [
      { type: 'thinking_delta', thinking: script.reasoning },
      { type: 'signature_delta', signature: `sig:${script.reasoning}` },
    ]);
  if (script.contentFreeEvents) events.push({ type: 'ping' });
  if (script.text) block({ type: 'text', text: '' }, [{ type: 'text_delta', text: script.text }]);
  if (script.refusal) block({ type: 'text', text: '' }, [{ type: 'text_delta', text: script.refusal }]);
  const calls = script.calls ?? [];
  calls.forEach((call, position) => {
    const cut = leavesOpen(script, position);
    block(
      { type: 'tool_use', id: call.id, name: call.name, input: {} },
      call.fragments.map((partial_json) => ({ type: 'input_json_delta', partial_json })),
      !cut,
    );
  });
  if (script.ending === 'error') {
    events.push({ type: 'error', error: { type: 'overloaded_error', message: script.errorMessage } });
    return sseFromEvents(events, { eventName: 'type' });
  }
  if (script.ending === 'cut') return sseFromEvents(events, { eventName: 'type' });
  const stopReason = { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens', refusal: 'refusal' }[
    script.ending as 'stop'
  ];
  events.push({
    type: 'message_delta',
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  events.push({ type: 'message_stop' });
  return sseFromEvents(events, { eventName: 'type' });
};

export const geminiInteractionsWire: WireFormat = (script) => {
  if (script.ending === 'refusal') return { unsupported: 'Interactions has no refusal signal.' };
  if (script.ending === 'content_filter') return { unsupported: 'Interactions reports no safety status.' };
  if (script.ending === 'no_finish_reason')
    return { unsupported: 'Interactions always ends with interaction.completed carrying the status.' };
  const events: unknown[] = [
    { event_type: 'interaction.created', interaction: { id: 'v1_i', status: 'in_progress' } },
  ];
  if (script.contentFreeEvents)
    events.push({ event_type: 'interaction.status_update', interaction_id: 'v1_i', status: 'in_progress' });
  let index = 0;
  if (script.reasoning) {
    events.push({ event_type: 'step.start', index, step: { type: 'thought' } });
    events.push({
      event_type: 'step.delta',
      index,
      delta: { type: 'thought_signature', signature: `sig:${script.reasoning}` },
    });
    events.push({ event_type: 'step.stop', index });
    index += 1;
  }
  if (script.text) {
    events.push({ event_type: 'step.start', index, step: { type: 'model_output' } });
    events.push({ event_type: 'step.delta', index, delta: { type: 'text', text: script.text } });
    events.push({ event_type: 'step.stop', index });
    index += 1;
  }
  const calls = script.calls ?? [];
  calls.forEach((call, position) => {
    events.push({
      event_type: 'step.start',
      index,
      step: { type: 'function_call', id: call.id, name: call.name, arguments: {} },
    });
    for (const fragment of call.fragments)
      events.push({
        event_type: 'step.delta',
        index,
        delta: { type: 'arguments_delta', arguments: fragment },
      });
    if (!(script.ending === 'length' && position === calls.length - 1))
      events.push({ event_type: 'step.stop', index });
    index += 1;
  });
  const usage = { total_input_tokens: 10, total_output_tokens: 5 };
  const status = { stop: 'completed', tool_calls: 'requires_action', length: 'incomplete' }[
    script.ending as 'stop'
  ];
  if (script.ending === 'error')
    events.push({ event_type: 'error', error: { code: 'internal', message: script.errorMessage } });
  else if (status)
    events.push({ event_type: 'interaction.completed', interaction: { id: 'v1_i', status, usage } });
  return sseFromEvents(events);
};

export const geminiGenerateContentWire: WireFormat = (script) => {
  if (script.ending === 'refusal')
    return { unsupported: 'generateContent has no refusal signal; its safety stops are content_filter.' };
  if (script.ending === 'no_finish_reason')
    return { unsupported: 'generateContent ends with a finishReason; a body without one is a cut stream.' };
  const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
  });
  const events: unknown[] = [];
  if (script.reasoning)
    events.push(
      chunk([{ text: script.reasoning, thought: true, thoughtSignature: `sig:${script.reasoning}` }]),
    );
  if (script.contentFreeEvents)
    events.push({ usageMetadata: { promptTokenCount: 10 }, modelVersion: 'test-model' });
  if (script.text) events.push(chunk([{ text: script.text }]));
  const calls = script.calls ?? [];
  calls.forEach((call, position) => {
    if (leavesOpen(script, position)) {
      // A cut call can only be partial when its arguments stream (Vertex `partialArgs`).
      events.push(chunk([{ functionCall: { name: call.name, willContinue: true } }]));
      events.push(
        chunk([
          {
            functionCall: {
              partialArgs: [{ jsonPath: '$.location', stringValue: 'Pa', willContinue: true }],
              willContinue: true,
            },
          },
        ]),
      );
      return;
    }
    events.push(
      chunk([{ functionCall: { id: call.id, name: call.name, args: JSON.parse(argsOf(call) || '{}') } }]),
    );
  });
  const usageMetadata = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 };
  const finishReason = { stop: 'STOP', tool_calls: 'STOP', length: 'MAX_TOKENS', content_filter: 'SAFETY' }[
    script.ending as 'stop'
  ];
  if (script.ending === 'error')
    events.push({ error: { code: 503, message: script.errorMessage, status: 'UNAVAILABLE' } });
  else if (finishReason) events.push({ ...chunk([{ text: '' }], { finishReason }), usageMetadata });
  return sseFromEvents(events);
};
