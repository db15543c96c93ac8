/**
 * A test tool registry for loop and chat tests: fakes named read_file and grep that declare the read-only
 * trait and record how many run at once, a writing tool (no traits: not read-only), a slow tool that reports progress and waits for its
 * signal (no shell, no sleep), and a tool with a large result.
 */

import type { EnabledToolRuntime } from '../../src/settings/tool-runtime.ts';
import { getEnabledToolRuntime } from '../../src/settings/tool-runtime.ts';
import { InMemoryToolSettingsRepository } from '../../src/settings/tool-settings-repository.ts';
import { ToolRegistry } from '../../src/tools/registry.ts';
import { readOnlyLocalTraits, type ToolTraits } from '../../src/tools/tool-traits.ts';
import type { SavedToolSettings, ToolContext } from '../../src/tools/types.ts';
import { makeTool } from './fake-tools.ts';

/** Resolves after `turns` macrotask turns: lets concurrent work interleave without a timed sleep. */
export async function yieldTurns(turns: number): Promise<void> {
  for (let index = 0; index < turns; index += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

export interface TurnToolProbe {
  active: number;
  maxActive: number;
  /** Tool names in the order their executions started. */
  started: string[];
  /** Names of calls whose signal fired. */
  aborted: string[];
}

export function createTurnTools(): { registry: ToolRegistry; probe: TurnToolProbe } {
  const probe: TurnToolProbe = { active: 0, maxActive: 0, started: [], aborted: [] };
  /** Runs for `delay` macrotask turns (from the `value` argument, default 1) and echoes. */
  const tracked = (name: string, traits?: ToolTraits) =>
    makeTool({
      name,
      ...(traits ? { traits } : {}),
      execute: async (args: unknown, _context: ToolContext) => {
        probe.started.push(name);
        probe.active += 1;
        probe.maxActive = Math.max(probe.maxActive, probe.active);
        const value = (args as { value?: string }).value;
        await yieldTurns(Number(value ?? '1') || 1);
        probe.active -= 1;
        return { tool: name, value: value ?? null };
      },
    });
  const registry = new ToolRegistry();
  registry.register(tracked('read_file', readOnlyLocalTraits('file_content')));
  registry.register(tracked('grep', readOnlyLocalTraits('search_matches')));
  registry.register(tracked('write_note'));
  registry.register(
    makeTool({
      name: 'slow',
      execute: (_args: unknown, context: ToolContext) =>
        new Promise((_resolve, reject) => {
          context.signal.addEventListener('abort', () => {
            probe.aborted.push('slow');
            reject(context.signal.reason);
          });
          context.onProgress({ type: 'started' });
        }),
    }),
  );
  registry.register(
    makeTool({
      name: 'stubborn',
      execute: (_args: unknown, context: ToolContext) => {
        context.onProgress({ type: 'started' });
        return new Promise(() => {});
      },
    }),
  );
  registry.register(
    makeTool({
      name: 'big',
      execute: async (args: unknown) => ({ text: 'x'.repeat(Number((args as { value?: string }).value)) }),
    }),
  );
  return { registry, probe };
}

/** The runtime of a user with no saved settings, or with `saved` rows by tool name. */
export async function loadRuntime(
  registry: ToolRegistry,
  userId = 'u1',
  saved: Record<string, SavedToolSettings> = {},
): Promise<EnabledToolRuntime> {
  const repository = new InMemoryToolSettingsRepository();
  for (const [name, row] of Object.entries(saved)) await repository.put(userId, name, row);
  return getEnabledToolRuntime(repository, userId, { registry });
}
