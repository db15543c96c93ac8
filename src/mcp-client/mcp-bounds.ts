/**
 * How much of an external MCP server Mango takes in: tools per listing, bytes per description, schema
 * and listing, bytes read of one message, and listings kept per user. Each is an operator variable
 * (docs/operating.md); the defaults and why: docs/decisions/2026-12-02-mcp-bounds.md.
 */
import { type Environment, readVariable } from '../config/environment-variables.ts';

export interface McpBounds {
  /** Tools one server may list. */
  maxTools: number;
  /** UTF-8 bytes of one tool's description. */
  maxDescriptionBytes: number;
  /** Bytes of one tool's input or output schema as JSON. */
  maxSchemaBytes: number;
  /** Bytes of one server's whole listing (every page's tools as JSON). */
  maxListingBytes: number;
  /** Bytes of one message kept as it is read from the connection (stdio line, HTTP body or event). */
  maxResultBytes: number;
  /** Bytes of listings kept per user across all their servers and scopes. */
  maxCachedBytesPerUser: number;
}

/** The bounds the environment sets. @throws ConfigError naming a malformed variable. */
export function readMcpBounds(environment: Environment): McpBounds {
  return {
    maxTools: readVariable(environment, 'MANGO_MCP_MAX_TOOLS'),
    maxDescriptionBytes: readVariable(environment, 'MANGO_MCP_MAX_DESCRIPTION_BYTES'),
    maxSchemaBytes: readVariable(environment, 'MANGO_MCP_MAX_SCHEMA_BYTES'),
    maxListingBytes: readVariable(environment, 'MANGO_MCP_MAX_LISTING_BYTES'),
    maxResultBytes: readVariable(environment, 'MANGO_MCP_MAX_RESULT_BYTES'),
    maxCachedBytesPerUser: readVariable(environment, 'MANGO_MCP_MAX_CACHED_BYTES_PER_USER'),
  };
}

/** The defaults (no variable set). */
export const DEFAULT_MCP_BOUNDS: McpBounds = readMcpBounds({});
