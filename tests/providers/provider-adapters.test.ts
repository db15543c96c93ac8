/**
 * The one list of provider adapters, and what reads it: every id has its adapter, the chat schema's
 * description names every id, and `docs/providers.md` has a row for every adapter with its API and
 * variables, and none for an id the list lacks. (The test tables of the adapters are keyed by the same
 * ids and check their own completeness.)
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROVIDER_IDS } from '../../src/contracts/provider-id.ts';
import { createChatBodySchema } from '../../src/http/chat/chat-schemas.ts';
import { describeProviderIds, PROVIDER_ADAPTERS } from '../../src/providers/provider-adapters.ts';

const DOCS = readFileSync(join(import.meta.dir, '..', '..', 'docs', 'providers.md'), 'utf8');

/** The cells of each row of the adapter table in `docs/providers.md`, by the id in its first cell. */
function documentedRows(markdown: string): { id: string; label: string; cells: string[] }[] {
  const lines = markdown.split('\n');
  const header = lines.findIndex((line) => /^\| id\s+\| API \(SDK\)/.test(line));
  if (header === -1)
    throw new Error('docs/providers.md has no table whose header starts "| id | API (SDK)".');
  const rows = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    const id = /^`([^`]+)`/.exec(cells[0] ?? '')?.[1];
    if (id === undefined) throw new Error(`A row of the provider table names no id: ${line}`);
    rows.push({ id, label: cells[0] ?? '', cells });
  }
  return rows;
}

describe('PROVIDER_ADAPTERS', () => {
  test('an adapter for every id, under its own id, in the ids’ order', () => {
    expect(Object.keys(PROVIDER_ADAPTERS).sort()).toEqual([...PROVIDER_IDS].sort());
    for (const id of PROVIDER_IDS) expect(PROVIDER_ADAPTERS[id].id).toBe(id);
  });

  test('describeProviderIds lists the ids as a sentence', () => {
    expect(describeProviderIds(['openai'])).toBe('openai');
    expect(describeProviderIds(['openai', 'anthropic'])).toBe('openai or anthropic');
    expect(describeProviderIds(PROVIDER_IDS)).toBe(
      'openai, openai-compatible, gemini, gemini-generate-content or anthropic',
    );
  });

  test('the chat schema describes the provider field with every id', () => {
    expect(createChatBodySchema.properties.provider.description).toBe(describeProviderIds(PROVIDER_IDS));
  });
});

describe('the adapter table of docs/providers.md', () => {
  const rows = documentedRows(DOCS);

  test('names only ids of the list', () => {
    expect(
      rows.map((row) => row.id).filter((id) => !(PROVIDER_IDS as readonly string[]).includes(id)),
    ).toEqual([]);
  });

  test.each([...PROVIDER_IDS])('%s: its row names its API and its variables', (id) => {
    const adapter = PROVIDER_ADAPTERS[id];
    // The adapter's own row; a second row of the same id (Vertex AI) describes a variant.
    const row = rows.find((candidate) => candidate.label === `\`${id}\``);
    expect(row, `docs/providers.md has no row for ${id}`).toBeDefined();
    const [, api = '', required = '', optional = ''] = row?.cells ?? [];
    expect(api).toContain(adapter.api);
    const [needed, extra] = adapter.keyRequired
      ? [adapter.keyVariable, adapter.baseUrlVariable]
      : [adapter.baseUrlVariable, adapter.keyVariable];
    expect(required).toContain(`\`${needed}\``);
    expect(optional).toContain(`\`${extra}\``);
  });
});
