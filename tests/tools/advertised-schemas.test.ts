/**
 * Every builtin advertises exactly what `advertised-schemas.snapshot.json` records: definitions, the
 * definitions built from default settings, settings metadata (defaults and descriptors), traits, and
 * the OpenAI strict, Gemini and Anthropic mappings. Changing how tools are declared must not change
 * what models and settings pages see; a deliberate change regenerates the snapshot (see
 * advertised-schemas-capture.ts) and is explained here.
 *
 * Differences explained: converting the builtins to `defineTool()` changed nothing. The approvals
 * added, on purpose: the `approvalDefault` trait on every tool (`never` for the read-only ones),
 * `autoApprovedPaths` on write_file and edit_file, and `autoApprovedCommands` /
 * `autoApprovedExactCommands` on bash and zsh (not PowerShell, whose commands are not parsed). The
 * result views added, on purpose: `directory_listing` on list_directory, `path_list` on glob and
 * `file_edit` on edit_file (each returns its view's shape from src/contracts/tool-result-view.ts).
 */
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { listTools } from '../../src/tools/registry.ts';
import '../../src/tools/builtin/register-builtin-tools.ts';
import {
  builtinToolsForSnapshot,
  captureAdvertisedSchemas,
  SNAPSHOT_FILE,
  UPDATE_COMMAND,
} from './advertised-schemas-capture.ts';

const snapshot = JSON.parse(readFileSync(SNAPSHOT_FILE, 'utf8')) as Record<string, unknown>;

const captured = captureAdvertisedSchemas(builtinToolsForSnapshot());

// Each comparison carries the update command, so a failure's diff says how to record a deliberate change.
test('the snapshot covers every registered builtin', () => {
  const missing = listTools()
    .map((tool) => tool.definition.name)
    .filter((name) => !(name in snapshot));
  expect({ missingFromSnapshot: missing, update: UPDATE_COMMAND }).toEqual({
    missingFromSnapshot: [],
    update: UPDATE_COMMAND,
  });
  expect({ tools: Object.keys(captured), update: UPDATE_COMMAND }).toEqual({
    tools: Object.keys(snapshot),
    update: UPDATE_COMMAND,
  });
});

test.each(Object.keys(snapshot))('%s advertises what the snapshot records', (name) => {
  expect({ advertised: captured[name], update: UPDATE_COMMAND }).toEqual({
    advertised: snapshot[name],
    update: UPDATE_COMMAND,
  });
});

test('every builtin is offered to OpenAI in strict mode', () => {
  const notStrict = Object.entries(captured)
    .filter(
      ([, entry]) => (entry as { openaiResponses: { strict: boolean } }).openaiResponses.strict !== true,
    )
    .map(([name]) => name);
  expect(notStrict).toEqual([]);
});
