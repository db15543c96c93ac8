/**
 * Approvals over MCP (docs/mcp.md, "Approvals"). MCP clients confirm tool calls themselves, guided by
 * the tool annotations; Mango adds two things:
 * - a tool whose effective `approval` is `always` is listed as `destructiveHint: true` and
 *   `readOnlyHint: false`, so a client that confirms by hints asks before it;
 * - when the client declared the `elicitation` capability (form mode), Mango itself asks through
 *   `elicitation/create` before running a call that needs approval (the same decision as in a chat,
 *   rules included). Accept runs it; decline, cancel, no answer within `approvalTimeoutSeconds`, or a
 *   failed request give a `denied` result and nothing runs.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { assessToolCallApproval } from '../approvals/assess-tool-call-approval.ts';
import { summarizeToolCall } from '../approvals/call-summary.ts';
import { errorMessage } from '../errors/error-message.ts';
import type { PreparedToolCall } from '../tools/execution.ts';
import { getSafeEffectiveToolSettings } from '../tools/tool-settings-resolver.ts';
import type { RegisteredTool, ToolCallContext, ToolExecutionResult } from '../tools/types.ts';

/** Whether the user's settings make every call of the tool ask (`approval: always`). */
export function asksBeforeEachCall(tool: RegisteredTool, savedSettings: unknown): boolean {
  return getSafeEffectiveToolSettings(tool, savedSettings, () => {}).parameters.approval === 'always';
}

function denied(message: string): ToolExecutionResult {
  return { ok: false, error: { classification: 'denied', message } };
}

/**
 * Asks the client's user through elicitation when the call (one `prepareToolCall` accepted, so nobody
 * is asked about a call that would fail) needs approval and the client can be asked.
 * @returns undefined when the call may run, or the `denied` result to send instead.
 */
export async function confirmThroughElicitation(
  server: Server,
  prepared: PreparedToolCall,
  context: ToolCallContext,
): Promise<ToolExecutionResult | undefined> {
  if (server.getClientCapabilities()?.elicitation?.form === undefined) return undefined;
  const decision = await assessToolCallApproval(prepared, context);
  if (!decision.ask) return undefined;
  const name = prepared.tool.definition.name;
  const timeoutSeconds = Number(prepared.settings.parameters.approvalTimeoutSeconds);
  let action: string;
  try {
    const result = await server.elicitInput(
      {
        message: `Run ${name}: ${summarizeToolCall(prepared.arguments)}? ${decision.reason}`,
        requestedSchema: { type: 'object', properties: {} },
      },
      { timeout: timeoutSeconds * 1000, ...(context.signal ? { signal: context.signal } : {}) },
    );
    action = result.action;
  } catch (error) {
    if (context.signal?.aborted) {
      return {
        ok: false,
        error: { classification: 'cancelled', message: 'The call was cancelled while waiting for approval.' },
      };
    }
    return denied(
      `The approval question could not be asked or was not answered within ${timeoutSeconds} seconds (${errorMessage(error)}), so the call was denied and not run.`,
    );
  }
  if (action === 'accept') return undefined;
  return denied(
    `The user ${action === 'decline' ? 'declined' : 'dismissed'} the approval question, so the call was not run.`,
  );
}
