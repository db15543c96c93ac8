/**
 * One tool of an external MCP server as a `RegisteredTool`, so everything that governs builtins governs
 * it unchanged: the settings machinery (enabled by default, a `timeoutSeconds` budget of 5–600 s,
 * default 60), central argument validation against the server's own input schema, the execution budget
 * and cancel of `executeTool`, the turn's result budget, and the provider schema mappings.
 *
 * What the server says about the tool is not trusted to loosen anything: its annotations may mark a
 * tool destructive or idempotent for display, but an external tool is never treated as read-only (it
 * does not run side by side with other calls), it may reach anything (`openWorld`), and a call waits
 * for the user's approval by default (`approvalDefault: 'always'`).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchema } from '../contracts/json-schema.ts';
import type { ToolTraits } from '../tools/tool-traits.ts';
import type { RegisteredTool, ToolContext } from '../tools/types.ts';

export const EXTERNAL_TIMEOUT_SECONDS = { default: 60, min: 5, max: 600 };
/** Longest description passed on to a model (a server could send megabytes). */
const MAX_DESCRIPTION_LENGTH = 4000;

export interface ExternalToolSpec {
  /** The server's name (the operator's or the user's). */
  server: string;
  /** The tool as the server lists it. */
  tool: Tool;
  /** Its Mango name (`mcp__<server>__<tool>`, external-tool-name.ts). */
  name: string;
  /** Runs the call on the server with the original tool name. */
  call: (args: Record<string, unknown>, context: ToolContext) => Promise<unknown>;
}

/** The server's input schema as Mango's source dialect: an object schema without a `$schema` tag. */
export function externalInputSchema(tool: Tool): JsonSchema {
  const { $schema: _dialect, ...schema } = tool.inputSchema as Record<string, unknown>;
  return { ...schema, type: 'object' } as JsonSchema;
}

function describeTool(spec: ExternalToolSpec): string {
  const text =
    spec.tool.description?.trim() || `The "${spec.tool.name}" tool of the MCP server "${spec.server}".`;
  return text.length > MAX_DESCRIPTION_LENGTH ? `${text.slice(0, MAX_DESCRIPTION_LENGTH)}…` : text;
}

export function externalTraits(tool: Tool): ToolTraits {
  const hints = tool.annotations ?? {};
  return {
    readOnly: false,
    destructive: hints.readOnlyHint === true ? false : hints.destructiveHint !== false,
    idempotent: hints.idempotentHint === true,
    openWorld: true,
    confirmBeforeEnable: false,
    resultView: 'json',
    approvalDefault: 'always',
  };
}

export function buildExternalTool(spec: ExternalToolSpec): RegisteredTool {
  const title = spec.tool.title ?? spec.tool.annotations?.title ?? spec.tool.name;
  return {
    definition: {
      name: spec.name,
      description: describeTool(spec),
      parameters: externalInputSchema(spec.tool),
    },
    settings: {
      title: `${title} (${spec.server})`,
      description: describeTool(spec),
      category: 'external',
      enabledByDefault: true,
      canDisable: true,
      defaultParameters: { timeoutSeconds: EXTERNAL_TIMEOUT_SECONDS.default },
      parameterDescriptors: [
        {
          name: 'timeoutSeconds',
          label: 'Timeout (seconds)',
          description: 'Budget for one call; the server is told to cancel it when it runs out.',
          type: 'integer',
          default: EXTERNAL_TIMEOUT_SECONDS.default,
          min: EXTERNAL_TIMEOUT_SECONDS.min,
          max: EXTERNAL_TIMEOUT_SECONDS.max,
        },
      ],
    },
    traits: externalTraits(spec.tool),
    execute: (args, context) => spec.call(args as Record<string, unknown>, context),
  };
}
