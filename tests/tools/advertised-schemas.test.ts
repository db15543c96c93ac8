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
 * `autoApprovedExactCommands` on bash and zsh (not PowerShell, whose commands are not parsed).
 */
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listTools } from '../../src/tools/registry.ts';
import '../../src/tools/builtin/register-builtin-tools.ts';
import { builtinToolsForSnapshot, captureAdvertisedSchemas } from './advertised-schemas-capture.ts';

const snapshot = JSON.parse(
  readFileSync(join(import.meta.dir, 'advertised-schemas.snapshot.json'), 'utf8'),
) as Record<string, unknown>;

const captured = captureAdvertisedSchemas(builtinToolsForSnapshot());

test('the snapshot covers every registered builtin', () => {
  const missing = listTools()
    .map((tool) => tool.definition.name)
    .filter((name) => !(name in snapshot));
  expect(missing).toEqual([]);
  expect(Object.keys(captured)).toEqual(Object.keys(snapshot));
});

test.each(Object.keys(snapshot))('%s advertises what the snapshot records', (name) => {
  expect(captured[name]).toEqual(snapshot[name]);
});

test('every builtin is offered to OpenAI in strict mode', () => {
  const notStrict = Object.entries(captured)
    .filter(
      ([, entry]) => (entry as { openaiResponses: { strict: boolean } }).openaiResponses.strict !== true,
    )
    .map(([name]) => name);
  expect(notStrict).toEqual([]);
});
