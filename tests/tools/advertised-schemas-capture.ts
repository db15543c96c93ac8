/**
 * What every builtin tool advertises, captured as plain JSON: its definition (and the definition built
 * from its default settings), its settings metadata, its traits and flags, and the request each provider
 * mapping derives from it (OpenAI Responses strict, Gemini Interactions, Anthropic Messages).
 * `advertised-schemas.test.ts` compares it with the committed snapshot; run this file to print a fresh
 * one: `npx bun tests/tools/advertised-schemas-capture.ts > tests/tools/advertised-schemas.snapshot.json`.
 * The shell tools are built for all three kinds here, whatever interpreters this machine has.
 */
import {
  toolDefsToAnthropic,
  toolDefsToGeminiInteractions,
  toolDefsToResponsesAPI,
} from '../../src/providers/tool-mapper.ts';
import { buildShellTool } from '../../src/tools/builtin/build-shell-tool.ts';
import { editFileTool } from '../../src/tools/builtin/edit-file.ts';
import { generateImageTool } from '../../src/tools/builtin/generate-image.ts';
import { getCurrentDatetimeTool } from '../../src/tools/builtin/get-current-datetime.ts';
import { globTool } from '../../src/tools/builtin/glob.ts';
import { grepTool } from '../../src/tools/builtin/grep.ts';
import { listDirectoryTool } from '../../src/tools/builtin/list-directory.ts';
import { readFileTool } from '../../src/tools/builtin/read-file.ts';
import { writeFileTool } from '../../src/tools/builtin/write-file.ts';
import { getDefaultToolSettings } from '../../src/tools/tool-settings-resolver.ts';
import type { RegisteredTool } from '../../src/tools/types.ts';

/** Every builtin, in a fixed order; the test checks that no registered builtin is missing from it. */
export function builtinToolsForSnapshot(): RegisteredTool[] {
  return [
    getCurrentDatetimeTool,
    generateImageTool,
    buildShellTool('bash'),
    buildShellTool('zsh'),
    buildShellTool('powershell'),
    readFileTool,
    writeFileTool,
    editFileTool,
    listDirectoryTool,
    globTool,
    grepTool,
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
  for (const tool of tools) {
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
  console.log(JSON.stringify(captureAdvertisedSchemas(builtinToolsForSnapshot()), null, 2));
}
