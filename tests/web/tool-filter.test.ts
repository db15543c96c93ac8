import { describe, expect, test } from 'bun:test';
import type { ToolSettingsDescriptor } from '../../web/api-client.ts';
import {
  isFiltering,
  matchesTerms,
  NO_TOOL_FILTERS,
  searchTerms,
  serverMatches,
  type ToolEntry,
  type ToolFilters,
  toolMatches,
} from '../../web/tool-filter.ts';

function descriptor(overrides: Partial<ToolSettingsDescriptor>): ToolSettingsDescriptor {
  return {
    name: 'read_file',
    title: 'Read file',
    description: 'Reads a text file from the workspace.',
    category: 'system',
    enabled: true,
    canDisable: true,
    available: true,
    confirmBeforeEnable: false,
    readOnly: true,
    resultView: 'file_content',
    parameters: {},
    parameterDescriptors: [],
    ...overrides,
  };
}

const readFile: ToolEntry = { tool: descriptor({}), source: 'builtin' };
const bash: ToolEntry = {
  tool: descriptor({ name: 'bash', title: 'Bash', description: 'Runs Bash commands.', enabled: false }),
  source: 'builtin',
};
const echo: ToolEntry = {
  tool: descriptor({
    name: 'mcp__everything__echo',
    title: 'Echo Tool (everything)',
    description: 'Echoes back the input.',
    category: 'external',
  }),
  source: 'operator',
  server: 'everything',
};
const mine: ToolEntry = {
  tool: descriptor({
    name: 'mcp__mine__add',
    title: 'Add',
    description: 'Adds two numbers.',
    category: 'external',
  }),
  source: 'user',
  server: 'mine',
};
const all = [readFile, bash, echo, mine];

function names(filters: Partial<ToolFilters>): string[] {
  return all
    .filter((entry) => toolMatches(entry, { ...NO_TOOL_FILTERS, ...filters }))
    .map((e) => e.tool.name);
}

describe('searchTerms and matchesTerms', () => {
  test.each([
    ['', []],
    ['   ', []],
    ['  Read   FILE ', ['read', 'file']],
    ['Résumé', ['resume']],
  ])('%p → %p', (query, terms) => {
    expect(searchTerms(query)).toEqual(terms);
  });

  test('every term must occur, each in any of the texts, ignoring case and accents', () => {
    expect(matchesTerms(['Read file', 'read_file'], ['read', 'file'])).toBe(true);
    expect(matchesTerms(['Read file', 'Reads a text file'], ['text', 'read'])).toBe(true);
    expect(matchesTerms(['Read file'], ['read', 'grep'])).toBe(false);
    expect(matchesTerms(['Résumé tool'], searchTerms('resume'))).toBe(true);
    expect(matchesTerms(['anything'], [])).toBe(true);
  });
});

describe('toolMatches', () => {
  test.each([
    // By title, by name (with its underscores), by description, by server name.
    [{ query: 'read' }, ['read_file']],
    [{ query: 'READ_F' }, ['read_file']],
    [{ query: 'text file' }, ['read_file']],
    [{ query: 'commands' }, ['bash']],
    [{ query: 'everything' }, ['mcp__everything__echo']],
    [{ query: 'mine' }, ['mcp__mine__add']],
    [{ query: 'nothing-like-this' }, []],
    [{ status: 'on' as const }, ['read_file', 'mcp__everything__echo', 'mcp__mine__add']],
    [{ status: 'off' as const }, ['bash']],
    [{ category: 'external' }, ['mcp__everything__echo', 'mcp__mine__add']],
    [{ category: 'image' }, []],
    [{ source: 'builtin' as const }, ['read_file', 'bash']],
    [{ source: 'operator' as const }, ['mcp__everything__echo']],
    [{ source: 'user' as const }, ['mcp__mine__add']],
    [{ query: 'run', status: 'off' as const, source: 'builtin' as const }, ['bash']],
    [{ query: 'echo', source: 'user' as const }, []],
  ])('%j keeps %p', (filters, expected) => {
    expect(names(filters)).toEqual(expected);
  });
});

describe('isFiltering', () => {
  test.each([
    [{}, false],
    [{ query: '   ' }, false],
    [{ query: 'x' }, true],
    [{ status: 'off' as const }, true],
    [{ category: 'system' }, true],
    [{ source: 'user' as const }, true],
  ])('%j → %p', (filters, expected) => {
    expect(isFiltering({ ...NO_TOOL_FILTERS, ...filters })).toBe(expected);
  });
});

describe('serverMatches', () => {
  const gone = { name: 'gone', source: 'operator' as const };
  test.each([
    [{}, true],
    [{ query: 'gon' }, true],
    [{ query: 'echo' }, false],
    [{ category: 'external' }, true],
    [{ category: 'system' }, false],
    [{ source: 'operator' as const }, true],
    [{ source: 'user' as const }, false],
    // A failed server is neither on nor off.
    [{ status: 'on' as const }, false],
    [{ status: 'off' as const, query: 'gone' }, false],
  ])('%j → %p', (filters, expected) => {
    expect(serverMatches(gone, { ...NO_TOOL_FILTERS, ...filters })).toBe(expected);
  });
});
