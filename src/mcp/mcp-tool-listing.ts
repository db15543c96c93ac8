/**
 * How the tools a session offers are described to MCP clients, and the refusals that depend on that
 * list. Pure, so the mapping is pinned by table tests.
 *
 * - Each tool carries `annotations` from its traits (`readOnlyHint`, `destructiveHint`,
 *   `idempotentHint`, `openWorldHint`); a tool without traits gets the most cautious hints (may write,
 *   destroy, differ on repeat, reach outside), stated rather than left to a client's defaults. A tool
 *   the user set to ask before each call is listed as destructive.
 * - A tool whose result shape is fixed carries its `outputSchema`; `toCallToolResult` then never sends
 *   structured content that could fail it (error and truncated results send text only).
 * - The list is one page: no cursor is ever issued, so any `cursor` is invalid params (-32602).
 * - A call naming a tool the registry does not know lists the session's tools, never the registry's.
 */
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  type Tool,
  type ToolAnnotations,
} from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition } from '../contracts/tool-definition.ts';
import { CAUTIOUS_TRAITS, type ToolTraits } from '../tools/tool-traits.ts';
import type { RegisteredTool } from '../tools/types.ts';
import { toCallToolResult } from './tool-call-result.ts';

/**
 * The MCP hints of a tool's traits (absent traits = the cautious ones). `asksApproval` (the user's
 * effective `approval` is `always`) makes it `destructiveHint: true` and `readOnlyHint: false`, so a
 * client that confirms by hints asks first (destructiveHint means nothing beside readOnlyHint: true).
 */
export function annotationsFor(traits: ToolTraits | undefined, asksApproval = false): ToolAnnotations {
  const { readOnly, destructive, idempotent, openWorld } = traits ?? CAUTIOUS_TRAITS;
  return {
    readOnlyHint: readOnly && !asksApproval,
    destructiveHint: (!readOnly && destructive) || asksApproval,
    idempotentHint: idempotent,
    openWorldHint: openWorld,
  };
}

/** One offered tool as MCP lists it: its definition (settings-aware) plus what the registry says of it. */
export function toMcpTool(
  definition: ToolDefinition,
  registered: RegisteredTool | undefined,
  asksApproval = false,
): Tool {
  const title = registered?.settings.title;
  return {
    name: definition.name,
    ...(title ? { title } : {}),
    description: definition.description,
    inputSchema: definition.parameters as Tool['inputSchema'],
    ...(registered?.outputSchema ? { outputSchema: registered.outputSchema as Tool['outputSchema'] } : {}),
    annotations: annotationsFor(registered?.traits, asksApproval),
  };
}

/** @throws McpError InvalidParams for any cursor: the list is never paged. */
export function assertFirstPage(cursor: string | undefined): void {
  if (cursor === undefined) return;
  throw new McpError(
    ErrorCode.InvalidParams,
    `Invalid cursor ${JSON.stringify(cursor)}: tools/list returns every tool on one page and issues no cursors.`,
  );
}

/** The `unknown_tool` result for a name the registry does not know, listing what this session offers. */
export function unknownToolResult(name: string, offered: readonly string[]): CallToolResult {
  return toCallToolResult({
    ok: false,
    error: {
      classification: 'unknown_tool',
      message: `No tool named "${name}". Available tools: ${offered.join(', ') || 'none'}.`,
    },
  });
}
