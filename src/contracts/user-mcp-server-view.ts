/**
 * An MCP server as the API shows it to one user (`GET /api/mcp-servers`): the operator's servers and
 * the user's own, with their state. The HTTP API sends it and the web app's tools page renders it, so it
 * sits at the bottom of the layer order (docs/architecture.md).
 */

/** How a server answered its last listing. */
export interface McpServerStatus {
  /** `connected`: its tools were listed; `failed`: it could not be reached or listed (see `error`). */
  status: 'connected' | 'failed';
  error?: string;
  /** Tools it lists (undefined until listed). */
  toolCount?: number;
  /** Mango names of its tools. */
  tools?: string[];
}

export interface UserMcpServerView {
  name: string;
  origin: 'operator' | 'user';
  transport: 'stdio' | 'http';
  /** The user's own servers only (an operator's URL or command is the operator's business). */
  url?: string;
  headerNames?: string[];
  state: McpServerStatus;
}
