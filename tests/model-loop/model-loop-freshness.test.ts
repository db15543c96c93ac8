/**
 * The read-before-write guarantee across the loop: a read counts in the chat's freshness ledger only when
 * the model received the call's whole result. A read_file result cut by the turn's output budget
 * (default 100 KiB, smaller than read_file's 256 KiB window) must not let write_file overwrite lines
 * the model never saw.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TurnEvent } from '../../src/contracts/turn-event.ts';
import { runModelLoop } from '../../src/model-loop/model-loop.ts';
import { InMemoryFreshnessLedger } from '../../src/tools/freshness-ledger.ts';
import { defaultToolRegistry } from '../../src/tools/registry.ts';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { ScriptedProvider, textResponse, toolCallsResponse } from '../helpers/scripted-provider.ts';
import { makeReachableSet, makeTempDirectory } from '../helpers/tool-context.ts';
import { loadRuntime } from '../helpers/turn-tools.ts';

let temp: ReturnType<typeof makeTempDirectory>;
beforeEach(() => {
  temp = makeTempDirectory('mango-turn-freshness-');
});
afterEach(() => temp.remove());

const WHOLE_READ = [{ id: 'r', name: 'read_file', arguments: { path: 'file.txt' } }];

async function readThenWrite(
  content: string,
  maxToolOutputBytes?: number,
  reads: { id: string; name: string; arguments: Record<string, unknown> }[] = WHOLE_READ,
) {
  const file = join(temp.path, 'file.txt');
  writeFileSync(file, content);
  const provider = new ScriptedProvider([
    toolCallsResponse(reads),
    toolCallsResponse([{ id: 'w', name: 'write_file', arguments: { path: 'file.txt', content: 'new\n' } }]),
    textResponse('done'),
  ]);
  const events: TurnEvent[] = [];
  for await (const event of runModelLoop({
    provider,
    model: 'test-model',
    history: [],
    userText: 'rewrite it',
    // Freshness is the subject here, not approvals: the write runs without asking.
    tools: await loadRuntime(defaultToolRegistry, 'u1', {
      write_file: { parameters: { approval: 'never' } },
    }),
    toolContext: {
      userId: 'u1',
      chatId: 'freshness-chat',
      reachable: makeReachableSet({ workingDirectory: temp.path }),
      ledger: new InMemoryFreshnessLedger(),
    },
    limits: maxToolOutputBytes === undefined ? undefined : { maxToolOutputBytes },
  })) {
    events.push(event);
  }
  const results = events.filter((event) => event.type === 'tool_result');
  return { results, disk: readFileSync(file, 'utf8') };
}

describe('a read counts only when its whole result reached the model', () => {
  test('a complete read under the budget allows the overwrite', async () => {
    const { results, disk } = await readThenWrite('short\nfile\n');
    expect(results.map((event) => event.ok)).toEqual([true, true]);
    expect(disk).toBe('new\n');
  });

  test('a 200 KiB byte view reaches the model whole (read_file declares its own result budget), so it counts', async () => {
    const bytes = 'A'.repeat(200 * 1024);
    const { results, disk } = await readThenWrite(bytes, undefined, [
      { id: 'r', name: 'read_file', arguments: { path: 'file.txt', view: 'hex' } },
    ]);
    expect(results.map((event) => event.ok)).toEqual([true, true]);
    expect(disk).toBe('new\n');
  });

  test('a read cut by the output budget does not: write_file is refused and the file is kept', async () => {
    // 150 KiB of control characters: within read_file's 256 KiB window, but JSON spells each as
    // \u0001 (6 bytes), so the result (~900 KiB) exceeds even read_file's own result budget.
    const content = `${Array.from({ length: 1500 }, (_, index) => `line ${index + 1} ${'\u0001'.repeat(100)}`).join('\n')}\n`;
    const { results, disk } = await readThenWrite(content);
    expect(results.map((event) => event.ok)).toEqual([true, false]);
    const refusal = results[1];
    expect(refusal?.type === 'tool_result' && !refusal.ok ? refusal.error.message : '').toContain(
      'this chat has not read it',
    );
    expect(disk).toBe(content);
  });

  test('chunked reads run concurrently in one response add up to a complete read', async () => {
    const reads = [1, 2, 3].map((startLine) => ({
      id: `r${startLine}`,
      name: 'read_file',
      arguments: { path: 'file.txt', startLine, maxLines: 1 },
    }));
    const { results, disk } = await readThenWrite('one\ntwo\nthree\n', undefined, reads);
    expect(results.map((event) => event.ok)).toEqual([true, true, true, true]);
    expect(disk).toBe('new\n');
  });

  test('the same read under a budget that fits it counts', async () => {
    const content = `${Array.from({ length: 1500 }, (_, index) => `line ${index + 1} ${'x'.repeat(70)}`).join('\n')}\n`;
    const { results, disk } = await readThenWrite(content, 1024 * 1024);
    expect(results.map((event) => event.ok)).toEqual([true, true]);
    expect(disk).toBe('new\n');
  });
});
