import { describe, expect, test } from 'bun:test';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_MCP_BOUNDS, type McpBounds } from '../../src/mcp-client/mcp-bounds.ts';
import { ListingRefusedError, ToolListingMeter } from '../../src/mcp-client/tool-listing-meter.ts';
import { TRANSPORT_CUT_KEY } from '../../src/mcp-client/transport-cut.ts';

const bounds: McpBounds = {
  ...DEFAULT_MCP_BOUNDS,
  maxTools: 3,
  maxDescriptionBytes: 10,
  maxSchemaBytes: 40,
  maxListingBytes: 300,
};

function tool(name: string, extra: Partial<Tool> = {}): Tool {
  return { name, description: 'short', inputSchema: { type: 'object' }, ...extra };
}

function refusal(pages: ({ tools: Tool[] } & Record<string, unknown>)[]): ListingRefusedError {
  const meter = new ToolListingMeter('big', bounds);
  try {
    for (const page of pages) meter.add(page);
  } catch (error) {
    if (error instanceof ListingRefusedError) return error;
    throw error;
  }
  throw new Error('the listing was not refused');
}

describe('ToolListingMeter', () => {
  test('a listing within every bound is counted, its bytes as JSON', () => {
    const meter = new ToolListingMeter('small', bounds);
    const page = [tool('a'), tool('b')];
    meter.add({ tools: page });
    meter.add({ tools: [tool('c')] });
    expect(meter.bytes).toBe(
      Buffer.byteLength(JSON.stringify(page)) + Buffer.byteLength(JSON.stringify([tool('c')])),
    );
  });

  test('each bound refuses the listing whole, naming itself and its variable', () => {
    const cases: [ListingRefusedError, string, string][] = [
      [
        refusal([{ tools: [tool('a'), tool('b')] }, { tools: [tool('c'), tool('d')] }]),
        'tools',
        'it lists more than 3 tools (4 so far), the most one server may list (MANGO_MCP_MAX_TOOLS)',
      ],
      [
        refusal([{ tools: [tool('a', { description: 'é'.repeat(6) })] }]),
        'description',
        'the description of its tool "a" is 12 bytes, over the 10 bytes limit for one description (MANGO_MCP_MAX_DESCRIPTION_BYTES)',
      ],
      [
        refusal([
          { tools: [tool('a', { outputSchema: { type: 'object', properties: { x: { type: 'string' } } } })] },
        ]),
        'schema',
        'the output schema of its tool "a" is 54 bytes, over the 40 bytes limit for one schema (MANGO_MCP_MAX_SCHEMA_BYTES)',
      ],
      [
        refusal([
          {
            tools: [tool('a'.repeat(100)), tool('b')],
          },
          { tools: [tool('c')] },
        ]),
        'listing',
        'its tool listing is 302 bytes, over the 300 bytes limit for one listing (MANGO_MCP_MAX_LISTING_BYTES)',
      ],
      [
        refusal([{ tools: [tool('a')], [TRANSPORT_CUT_KEY]: { bytes: 5000, limitBytes: 1024 } }]),
        'listing',
        'its tool listing is at least 5000 bytes, over the 300 bytes limit for one listing (MANGO_MCP_MAX_LISTING_BYTES)',
      ],
      [
        refusal([{ tools: [tool('a')], [TRANSPORT_CUT_KEY]: { bytes: 200, limitBytes: 100 } }]),
        'message',
        'one page of its listing is 200 bytes, over the 100 bytes read of one message (MANGO_MCP_MAX_RESULT_BYTES)',
      ],
    ];
    for (const [error, bound, detail] of cases) {
      expect([error.bound, error.classification, error.message]).toEqual([
        bound,
        'execution_error',
        `The MCP server "big" was refused: ${detail}; none of its tools are offered until its listing fits.`,
      ]);
    }
  });
});
