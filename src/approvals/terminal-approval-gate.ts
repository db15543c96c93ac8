/**
 * The approval gate of `mango chat` (docs/cli.md, "Approvals"): a call that needs approval is asked
 * about on the terminal as `Approve <name> <summary>? [y/N] `, answered by the next line read. Only
 * `y` or `yes` (any case) approves; anything else, an empty line or the end of input denies. When stdin
 * is not a terminal nobody can be asked, so every such call is denied with the reason "no terminal to
 * ask on". Ctrl-C (the turn's signal) ends the wait as a cancel; no answer within the tool's
 * `approvalTimeoutSeconds` denies it.
 */
import { REAL_TOOL_TIMERS, type ToolTimers } from '../tools/execution.ts';
import { summarizeToolCall } from './call-summary.ts';
import {
  type AskedToolApproval,
  pendingApprovalOf,
  type ToolApprovalGate,
  type ToolApprovalOutcome,
  type ToolApprovalQuestion,
} from './tool-approval-gate.ts';

export const NO_TERMINAL_REASON = 'no terminal to ask on';

export interface TerminalApprovalGateOptions {
  /** Whether stdin is a terminal a person answers on. */
  isTerminal: boolean;
  /** The next line of input; undefined at its end. */
  readLine: () => Promise<string | undefined>;
  write: (text: string) => void;
  now?: () => number;
  timers?: ToolTimers;
}

export function createTerminalApprovalGate(options: TerminalApprovalGateOptions): ToolApprovalGate {
  const now = options.now ?? Date.now;
  const timers = options.timers ?? REAL_TOOL_TIMERS;
  return {
    async ask(question: ToolApprovalQuestion, signal: AbortSignal): Promise<AskedToolApproval> {
      const requestedAt = now();
      const pending = pendingApprovalOf(question, requestedAt);
      if (!options.isTerminal) {
        return {
          pending,
          answer: Promise.resolve({ decision: 'denied', by: 'user', reason: NO_TERMINAL_REASON }),
        };
      }
      const answer = new Promise<ToolApprovalOutcome>((resolve) => {
        let settled = false;
        const finish = (outcome: ToolApprovalOutcome) => {
          if (settled) return;
          settled = true;
          timers.clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          if (outcome.by !== 'user') options.write('\n');
          resolve(outcome);
        };
        const onAbort = () => finish({ decision: 'denied', by: 'cancel' });
        const timer = timers.setTimeout(
          () => finish({ decision: 'denied', by: 'timeout' }),
          question.timeoutSeconds * 1000,
        );
        if (signal.aborted) {
          onAbort();
          return;
        }
        signal.addEventListener('abort', onAbort, { once: true });
        options.write(`Approve ${question.name} ${summarizeToolCall(question.arguments)}? [y/N] `);
        options.readLine().then(
          (line) => {
            const yes = line !== undefined && /^\s*y(es)?\s*$/i.test(line);
            finish(yes ? { decision: 'approved', by: 'user' } : { decision: 'denied', by: 'user' });
          },
          () => finish({ decision: 'denied', by: 'user' }),
        );
      });
      return { pending, answer };
    },
  };
}
