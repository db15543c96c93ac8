/**
 * Answering an approval question (`POST /api/chats/:chatId/approvals/:callId`, docs/http-api.md), on
 * whichever instance the answer arrives. The caller has checked that the chat is the user's.
 *
 * Guarantees:
 * - `not_found` when the chat's newest turn asked no question with this call id; `approval_closed`
 *   when it no longer waits (answered, timed out, cancelled, interrupted), expired, or its turn ended or
 *   lost its lease; `invalid_request` for a `remember`/`rememberPrefix` that cannot apply (a deny, a
 *   tool without command rules, a prefix that does not parse or is not a word prefix of the command).
 *   The body is checked before anything is written.
 * - The answer is one conditional write of the question's row (`ToolApprovalRepository.answerApproval`), so
 *   of two answers at once exactly one wins and the other gets `approval_closed`.
 * - A remembered rule is stored with the answer (the turn applies it for the rest of its calls) and
 *   then written to the user's saved settings of that tool.
 */
import { ChatError } from '../chat/chat-errors.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import { isCommandPrefixOf, parseSimpleCommand } from '../tools/shell/command-approval-rules.ts';
import type { WakeUpSource } from '../turns/wake-up-source.ts';
import { ruleShellOf } from './approval-decision.ts';
import type { RememberedApprovalRule } from './tool-approval-gate.ts';
import type {
  ToolApprovalRecord,
  ToolApprovalRepository,
  ToolApprovalState,
} from './tool-approval-repository.ts';

export const MAX_APPROVAL_REASON_LENGTH = 2000;

export interface ToolApprovalAnswerBody {
  decision: 'approve' | 'deny';
  reason?: string;
  /** Approve, shell tool: add the trimmed command to `autoApprovedExactCommands`. */
  remember?: boolean;
  /** Approve, shell tool: add this word prefix of the command to `autoApprovedCommands`. */
  rememberPrefix?: string;
}

export interface ToolApprovalAnswerResult {
  callId: string;
  decision: 'approve' | 'deny';
  reason?: string;
  remembered?: RememberedApprovalRule;
}

export interface AnswerToolApprovalInput {
  store: ToolApprovalRepository;
  registry: ToolRegistry;
  wakeups: WakeUpSource;
  userId: string;
  chatId: string;
  callId: string;
  body: ToolApprovalAnswerBody;
  now: () => number;
  /** Writes the rule into the user's saved settings of the tool; absent, remembering is refused. */
  remember?: (userId: string, toolName: string, rule: RememberedApprovalRule) => Promise<void>;
}

const CLOSED_BECAUSE: Record<Exclude<ToolApprovalState, 'waiting'>, string> = {
  approved: 'it was already approved',
  denied: 'it was already denied',
  timed_out: 'nobody answered in time, so it was denied',
  cancelled: 'its turn was cancelled',
  interrupted: 'its turn was interrupted (the server running it lost the chat)',
};

function closed(record: ToolApprovalRecord, because: string): ChatError {
  return new ChatError(
    'approval_closed',
    `The call ${JSON.stringify(record.callId)} (${record.name}) no longer waits for approval: ${because}.`,
  );
}

function invalid(message: string): ChatError {
  return new ChatError('invalid_request', message);
}

/** The rule an approval asks to remember, checked against the call. @throws ChatError invalid_request. */
function ruleToRemember(
  record: ToolApprovalRecord,
  body: ToolApprovalAnswerBody,
  registry: ToolRegistry,
): RememberedApprovalRule | undefined {
  const wantsExact = body.remember === true;
  const prefix = body.rememberPrefix;
  if (!wantsExact && prefix === undefined) return undefined;
  if (body.decision !== 'approve') {
    throw invalid(
      'remember and rememberPrefix apply only to an approval (decision "approve"), not to a deny.',
    );
  }
  if (wantsExact && prefix !== undefined) {
    throw invalid(
      'Give either remember (this exact command) or rememberPrefix (a command prefix), not both.',
    );
  }
  const tool = registry.get(record.name);
  const shell = tool === undefined ? undefined : ruleShellOf(tool);
  const command = record.arguments.command;
  if (shell === undefined || typeof command !== 'string') {
    throw invalid(
      `remember and rememberPrefix apply only to bash and zsh commands; ${record.name} has no command rules.`,
    );
  }
  if (wantsExact) return { setting: 'autoApprovedExactCommands', rule: command.trim() };
  const trimmed = (prefix ?? '').trim();
  const parsed = parseSimpleCommand(trimmed, shell);
  if (!parsed.ok) {
    throw invalid(
      `rememberPrefix ${JSON.stringify(trimmed)} is not a plain command prefix (${parsed.reason}); use literal words only.`,
    );
  }
  if (!isCommandPrefixOf(trimmed, command, shell)) {
    throw invalid(
      `rememberPrefix ${JSON.stringify(trimmed)} is not a word prefix of the command ${JSON.stringify(command)}.`,
    );
  }
  return { setting: 'autoApprovedCommands', rule: trimmed };
}

export async function answerToolApproval(input: AnswerToolApprovalInput): Promise<ToolApprovalAnswerResult> {
  const { store, body } = input;
  if (body.reason !== undefined && body.reason.length > MAX_APPROVAL_REASON_LENGTH) {
    throw invalid(
      `reason must be at most ${MAX_APPROVAL_REASON_LENGTH} characters, got ${body.reason.length}.`,
    );
  }
  const record = await store.findApproval(input.chatId, input.callId);
  if (record === undefined) {
    throw new ChatError(
      'not_found',
      `No call ${JSON.stringify(input.callId)} is waiting for approval in chat ${input.chatId}.`,
    );
  }
  if (record.state !== 'waiting') throw closed(record, CLOSED_BECAUSE[record.state]);
  const remembered = ruleToRemember(record, body, input.registry);
  if (remembered !== undefined && input.remember === undefined) {
    throw invalid(
      'This server cannot store remembered approval rules; answer without remember or rememberPrefix.',
    );
  }
  const reason = body.reason?.trim() ? body.reason.trim() : undefined;
  const now = new Date(input.now()).toISOString();
  const answered = await store.answerApproval(record.id, {
    decision: body.decision === 'approve' ? 'approved' : 'denied',
    now,
    ...(reason === undefined ? {} : { reason }),
    ...(remembered === undefined ? {} : { remembered }),
  });
  if (!answered) {
    const current = (await store.getApproval(record.id)) ?? record;
    if (current.state !== 'waiting') throw closed(current, CLOSED_BECAUSE[current.state]);
    if (current.expiresAt <= now) throw closed(current, CLOSED_BECAUSE.timed_out);
    // Still waiting, yet its turn no longer runs with a live lease: nobody will ever run the call.
    await store.closeApproval(record.id, 'interrupted', now).catch(() => {});
    throw closed(current, 'its turn has ended or the server running it lost the chat');
  }
  input.wakeups.notify('approval', record.id);
  if (remembered !== undefined) await input.remember?.(input.userId, record.name, remembered);
  return {
    callId: record.callId,
    decision: body.decision,
    ...(reason === undefined ? {} : { reason }),
    ...(remembered === undefined ? {} : { remembered }),
  };
}
