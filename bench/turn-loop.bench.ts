/**
 * Loop overhead per iteration, as `npm run bench` measures it: a zero-delay scripted provider that calls one
 * no-op tool per response, so everything measured is the loop itself — event streaming, argument
 * parsing, `executeTool` (settings merge, budget timer, abort wiring), result serialization, history
 * bookkeeping and the persistence callback. The baseline does the least the same work needs in bare
 * Bun: iterate the same provider stream, JSON.parse the arguments, call the executor, JSON.stringify.
 */
import type { ConversationItem } from '../src/contracts/conversation-item.ts';
import type { ProviderEvent } from '../src/contracts/provider-event.ts';
import { runModelLoop } from '../src/model-loop/model-loop.ts';
import type { ModelRequest } from '../src/providers/model-provider.ts';
import { getEnabledToolRuntime } from '../src/settings/tool-runtime.ts';
import { InMemoryToolSettingsRepository } from '../src/settings/tool-settings-repository.ts';
import { ToolRegistry } from '../src/tools/registry.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../tests/helpers/scripted-provider.ts';
import { benchReachable } from './support/bench-reachable.ts';
import { noopTool } from './support/noop-tool.ts';

const registry = new ToolRegistry();
registry.register(noopTool);
const tools = await getEnabledToolRuntime(new InMemoryToolSettingsRepository(), 'bench', { registry });
const callStep = toolCallsResponse([{ id: 'c', name: 'noop', arguments: { value: 'x' } }]);
const answerStep = textResponse('done');

/** Runs one turn of `iterations` model calls (iterations - 1 tool rounds, then an answer). */
async function loopTurn(iterations: number): Promise<number> {
  const steps = [...Array.from({ length: iterations - 1 }, () => callStep), answerStep];
  const provider = new ScriptedProvider(steps, { record: false });
  let saved = 0;
  let events = 0;
  for await (const _event of runModelLoop({
    provider,
    model: 'bench',
    history: [],
    userText: 'go',
    tools,
    toolContext: { userId: 'bench', chatId: 'bench', reachable: benchReachable() },
    limits: { maxIterations: iterations },
    onItem: () => {
      saved += 1;
    },
    executeOptions: { registry },
  })) {
    events += 1;
  }
  return events + saved;
}

/** The same work without the loop's guarantees. */
async function bareTurn(iterations: number): Promise<number> {
  const steps = [...Array.from({ length: iterations - 1 }, () => callStep), answerStep];
  const provider = new ScriptedProvider(steps, { record: false });
  const history: ConversationItem[] = [{ type: 'user_text', text: 'go' }];
  const controller = new AbortController();
  let events = 0;
  for (let iteration = 0; iteration < iterations; iteration += 1) {
    const request: ModelRequest = {
      model: 'bench',
      history,
      tools: tools.definitions,
      signal: controller.signal,
    };
    const calls: Extract<ProviderEvent, { type: 'tool_call_completed' }>[] = [];
    for await (const event of provider.stream(request)) {
      events += 1;
      if (event.type === 'tool_call_completed') calls.push(event);
    }
    for (const call of calls) {
      const result = await noopTool.execute(JSON.parse(call.arguments), undefined as never);
      history.push({ type: 'tool_call', callId: call.callId, name: call.name, arguments: call.arguments });
      history.push({
        type: 'tool_result',
        callId: call.callId,
        name: call.name,
        ok: true,
        output: JSON.stringify(result),
      });
    }
  }
  return events;
}

async function measure(
  name: string,
  turn: (iterations: number) => Promise<number>,
  iterations: number,
  turns: number,
) {
  for (let warm = 0; warm < 20; warm += 1) await turn(iterations);
  const started = performance.now();
  for (let index = 0; index < turns; index += 1) await turn(iterations);
  const elapsed = performance.now() - started;
  const perIteration = (elapsed * 1000) / (turns * iterations);
  console.log(
    `${name.padEnd(36)} ${perIteration.toFixed(1).padStart(8)} µs/iteration  (${turns} turns × ${iterations} iterations)`,
  );
  return perIteration;
}

for (const [iterations, turns] of [
  [25, 400],
  [200, 20],
] as const) {
  console.log(`\n-- turns of ${iterations} iterations (one no-op tool call each) --`);
  const loop = await measure('runModelLoop (executeTool, persistence)', loopTurn, iterations, turns);
  const bare = await measure('bare Bun baseline', bareTurn, iterations, turns);
  console.log(
    `ratio runModelLoop / bare: ${(loop / bare).toFixed(2)}×; loop overhead ${(loop - bare).toFixed(1)} µs/iteration`,
  );
}
