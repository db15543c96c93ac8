/**
 * Measures one server's tool listing page by page against the listing bounds (mcp-bounds.ts) and
 * refuses it whole at the first bound it goes over, naming the bound and its variable: a listing that
 * is partly offered would change under the user as pages or tools came and went, and a server that
 * sends megabytes of descriptions is not one to take half of.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ToolError } from '../tools/errors.ts';
import { formatBytes } from '../tools/output/cut-notices.ts';
import type { McpBounds } from './mcp-bounds.ts';
import { transportCutOf } from './transport-cut.ts';

/** Which bound refused a listing: stable, for callers and tests to tell them apart. */
export type ListingBound = 'tools' | 'description' | 'schema' | 'listing' | 'message';

/** A listing over one of the bounds: `execution_error`, the server left out of the user's tools. */
export class ListingRefusedError extends ToolError {
  readonly bound: ListingBound;

  constructor(server: string, bound: ListingBound, detail: string) {
    super(
      'execution_error',
      `The MCP server "${server}" was refused: ${detail}; none of its tools are offered until its listing fits.`,
    );
    this.name = 'ListingRefusedError';
    this.bound = bound;
  }
}

function jsonBytes(value: unknown): number {
  return value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value));
}

export class ToolListingMeter {
  readonly #server: string;
  readonly #bounds: McpBounds;
  #tools = 0;
  #bytes = 0;

  constructor(server: string, bounds: McpBounds) {
    this.#server = server;
    this.#bounds = bounds;
  }

  /** Counts one page. @throws ListingRefusedError at the first bound it goes over. */
  add(page: { tools: Tool[] } & Record<string, unknown>): void {
    const bounds = this.#bounds;
    const cut = transportCutOf(page);
    if (cut !== undefined) {
      // Cut at the connection: its size is the page's, which is at least what the listing holds.
      if (cut.bytes > bounds.maxListingBytes) this.#overListing(cut.bytes, 'at least ');
      this.#refuse(
        'message',
        `one page of its listing is ${cut.bytes} bytes, over the ${formatBytes(cut.limitBytes)} read of one message (MANGO_MCP_MAX_RESULT_BYTES)`,
      );
    }
    this.#tools += page.tools.length;
    if (this.#tools > bounds.maxTools) {
      this.#refuse(
        'tools',
        `it lists more than ${bounds.maxTools} tools (${this.#tools} so far), the most one server may list (MANGO_MCP_MAX_TOOLS)`,
      );
    }
    for (const tool of page.tools) this.#checkTool(tool);
    this.#bytes += jsonBytes(page.tools);
    if (this.#bytes > bounds.maxListingBytes) this.#overListing(this.#bytes, '');
  }

  #checkTool(tool: Tool): void {
    const bounds = this.#bounds;
    const description = Buffer.byteLength(tool.description ?? '');
    if (description > bounds.maxDescriptionBytes) {
      this.#refuse(
        'description',
        `the description of its tool "${tool.name}" is ${description} bytes, over the ${formatBytes(bounds.maxDescriptionBytes)} limit for one description (MANGO_MCP_MAX_DESCRIPTION_BYTES)`,
      );
    }
    for (const [which, schema] of [
      ['input', tool.inputSchema],
      ['output', tool.outputSchema],
    ] as const) {
      const bytes = jsonBytes(schema);
      if (bytes > bounds.maxSchemaBytes) {
        this.#refuse(
          'schema',
          `the ${which} schema of its tool "${tool.name}" is ${bytes} bytes, over the ${formatBytes(bounds.maxSchemaBytes)} limit for one schema (MANGO_MCP_MAX_SCHEMA_BYTES)`,
        );
      }
    }
  }

  #overListing(bytes: number, qualifier: string): never {
    this.#refuse(
      'listing',
      `its tool listing is ${qualifier}${bytes} bytes, over the ${formatBytes(this.#bounds.maxListingBytes)} limit for one listing (MANGO_MCP_MAX_LISTING_BYTES)`,
    );
  }

  #refuse(bound: ListingBound, detail: string): never {
    throw new ListingRefusedError(this.#server, bound, detail);
  }

  /** Bytes of the tools listed so far, as JSON: what a kept list costs. */
  get bytes(): number {
    return this.#bytes;
  }
}
