/**
 * What every builtin tool advertises, captured as plain JSON: its definition (and the definition built
 * from its default settings), its settings metadata, its traits and flags, and the request each provider
 * mapping derives from it (OpenAI Responses strict, Gemini Interactions, Anthropic Messages).
 * `advertised-schemas.test.ts` compares it with the committed snapshot. The tools are the registered
 * builtins themselves, so a new tool file needs no entry here; the shell tools are built for all three
 * kinds, whatever interpreters this machine has. `bun tests/tools/advertised-schemas-capture.ts --write`
 * rewrites the snapshot and the tool table of `docs/tools.md` that is generated from it.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  toolDefsToAnthropic,
  toolDefsToGeminiInteractions,
  toolDefsToResponsesAPI,
} from '../../src/providers/tool-mapper.ts';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { buildShellTool } from '../../src/tools/builtin/build-shell-tool.ts';
import { listTools } from '../../src/tools/registry.ts';
import { SHELL_KINDS } from '../../src/tools/shell/shell-interpreter.ts';
import { getDefaultToolSettings } from '../../src/tools/tool-settings-resolver.ts';
import type { RegisteredTool } from '../../src/tools/types.ts';
import { TOOLS_PAGE, withGeneratedToolTable } from './tool-table.ts';

export const SNAPSHOT_FILE = join(import.meta.dir, 'advertised-schemas.snapshot.json');

/** What to run after a deliberate change; the snapshot test's failures name it. */
export const UPDATE_COMMAND = 'bun tests/tools/advertised-schemas-capture.ts --write';

/** Every registered builtin, the shells of all kinds in place of whichever this machine registered. */
export function builtinToolsForSnapshot(): RegisteredTool[] {
  const shells = new Set<string>(SHELL_KINDS);
  return [
    ...listTools().filter((tool) => !shells.has(tool.definition.name)),
    ...SHELL_KINDS.map((kind) => buildShellTool(kind)),
  ];
}

/** Object keys in code-point order, so a regenerated snapshot differs only where a value does. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, child]) => [key, sortKeys(child)]));
}

/** A JSON round trip: what a client or the snapshot file sees (symbol keys and undefined dropped). */
function plain(value: unknown): unknown {
  return value === undefined ? null : sortKeys(JSON.parse(JSON.stringify(value)));
}

export function captureAdvertisedSchemas(tools: readonly RegisteredTool[]): Record<string, unknown> {
  const captured: Record<string, unknown> = {};
  const byName = (a: RegisteredTool, b: RegisteredTool) => (a.definition.name < b.definition.name ? -1 : 1);
  for (const tool of [...tools].sort(byName)) {
    const definition = tool.definition;
    const built = tool.buildDefinition ? tool.buildDefinition(getDefaultToolSettings(tool)) : definition;
    captured[definition.name] = plain({
      definition,
      builtFromDefaultSettings: built,
      settings: tool.settings,
      traits: tool.traits ?? null,
      reportsPartialResultOnAbort: tool.reportsPartialResultOnAbort ?? false,
      resultBudgetBytes: tool.resultBudgetBytes ?? null,
      outputSchema: tool.outputSchema ?? null,
      openaiResponses: toolDefsToResponsesAPI([built])[0],
      gemini: toolDefsToGeminiInteractions([built])[0],
      anthropic: toolDefsToAnthropic([built])[0],
    });
  }
  return captured;
}

if (import.meta.main) {
  const snapshot = captureAdvertisedSchemas(builtinToolsForSnapshot());
  const text = `${JSON.stringify(snapshot, null, 2)}\n`;
  if (process.argv.includes('--write')) {
    writeFileSync(SNAPSHOT_FILE, text);
    writeFileSync(TOOLS_PAGE, withGeneratedToolTable(readFileSync(TOOLS_PAGE, 'utf8'), snapshot));
  } else process.stdout.write(text);
}
