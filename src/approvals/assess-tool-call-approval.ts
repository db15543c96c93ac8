/**
 * The approval decision of one prepared call, with the I/O it needs: the write target of a file tool
 * resolved (`auto-approved-write-target.ts`), then the pure rules (`approval-decision.ts`). The chat loop
 * and the MCP server both decide through this, so a call is asked about the same way everywhere.
 */
import type { PreparedToolCall } from '../tools/execution.ts';
import type { ToolCallContext } from '../tools/types.ts';
import { type ApprovalDecision, decideApproval } from './approval-decision.ts';
import { assessAutoApprovedWriteTarget } from './auto-approved-write-target.ts';

export async function assessToolCallApproval(
  call: PreparedToolCall,
  context: ToolCallContext,
): Promise<ApprovalDecision> {
  return decideApproval({
    tool: call.tool,
    settings: call.settings,
    arguments: call.arguments,
    writeTarget: await assessAutoApprovedWriteTarget(call, context),
  });
}
