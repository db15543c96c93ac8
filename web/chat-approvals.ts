/**
 * The open chat's calls that wait for the user: one answer panel per waiting call (made once and kept
 * while it waits, so what the user typed survives re-renders), and the status line while any waits —
 * "Waiting for your approval" with a Review button that moves focus to the oldest waiting card, from
 * where Tab reaches Approve. Focus is never moved without the user asking: an Enter meant for the
 * composer must not approve a command; after an answer, focus goes to the next waiting card, else back
 * to the composer. The window title starts with "Approval needed" meanwhile, so a
 * tab in the background shows that the chat waits.
 */
import type { ApiClient, ToolSettingsDescriptor } from './api-client.ts';
import { type ApprovalRuleSupport, createApprovalPanel } from './approval-panel.ts';
import { approvalSummary, parseApprovalArguments } from './approval-request-view.ts';
import { h } from './dom.ts';
import { isAwaitingAnswer, type ToolCallEntry, type Transcript } from './transcript.ts';

export interface ChatApprovalsOptions {
  api: Pick<ApiClient, 'answerApproval'>;
  chatId: string;
  /** The transcript element the waiting cards are in. */
  log: HTMLElement;
  /** Shows (and announces) the turn's status line; `action` is put after the text. */
  showStatus(text: string, action?: HTMLElement): void;
  /** The view should render again (an answer changed a card). */
  changed(): void;
  /** Where focus goes after an answer given from a card when no other call waits (the composer). */
  home: HTMLElement;
}

export interface ChatApprovals {
  /** Learns which tools take command rules, from their settings descriptors. */
  setTools(tools: readonly ToolSettingsDescriptor[]): void;
  /** The answer panel of a call while it waits; undefined otherwise. */
  panelFor(call: ToolCallEntry): HTMLElement | undefined;
  /**
   * After a render: forgets panels of calls no longer waiting and, when the set of waiting calls
   * changed, updates the status line (back to `runningText` when none waits).
   */
  sync(transcript: Transcript, runningText: string): void;
}

/** The status line's words while calls wait. */
export function waitingStatusText(waiting: readonly ToolCallEntry[]): string {
  if (waiting.length === 1) {
    const [call] = waiting as [ToolCallEntry];
    return `Waiting for your approval: ${approvalSummary(call.name, parseApprovalArguments(call.argumentsText))}`;
  }
  return `Waiting for your approval: ${waiting.length} calls`;
}

export const WAITING_TITLE_PREFIX = 'Approval needed · ';

function markTitle(waiting: boolean): void {
  const marked = document.title.startsWith(WAITING_TITLE_PREFIX);
  if (waiting && !marked) document.title = `${WAITING_TITLE_PREFIX}${document.title}`;
  if (!waiting && marked) document.title = document.title.slice(WAITING_TITLE_PREFIX.length);
}

export function createChatApprovals(options: ChatApprovalsOptions): ChatApprovals {
  const rules = new Map<string, ApprovalRuleSupport>();
  const panels = new Map<string, HTMLElement>();
  let shown = '';

  const review = h(
    'button',
    {
      type: 'button',
      class: 'button-quiet approval-review',
      onclick: () => {
        const card = options.log.querySelector<HTMLElement>('article.call-waiting[tabindex]');
        if (!card) return;
        card.scrollIntoView({ block: 'center' });
        card.focus();
      },
    },
    'Review',
  );
  review.setAttribute('aria-label', 'Review the waiting call');

  return {
    setTools(tools) {
      for (const tool of tools) {
        const names = new Set(tool.parameterDescriptors.map((descriptor) => descriptor.name));
        rules.set(tool.name, {
          prefix: names.has('autoApprovedCommands'),
          exact: names.has('autoApprovedExactCommands'),
        });
      }
    },
    panelFor(call) {
      if (call.status !== 'waiting' || !isAwaitingAnswer(call)) return undefined;
      let panel = panels.get(call.callId);
      if (!panel) {
        panel = createApprovalPanel({
          call,
          rules: rules.get(call.name) ?? { prefix: false, exact: false },
          answer: (body) => options.api.answerApproval(options.chatId, call.callId, body),
          onAnswered: (answer) => {
            if (answer.remembered && call.approval) call.approval.remembered = answer.remembered;
            // The answered card's buttons are gone or disabled: keep a keyboard user's place.
            const active = document.activeElement;
            if (active === document.body || active === null || panel?.contains(active)) {
              const next = options.log.querySelector<HTMLElement>(
                `article.call-waiting[tabindex]:not([data-call-id="${CSS.escape(call.callId)}"])`,
              );
              (next ?? options.home).focus();
            }
            options.changed();
          },
        });
        panels.set(call.callId, panel);
      }
      return panel;
    },
    sync(transcript, runningText) {
      const waiting = transcript.entries.filter(
        (entry): entry is ToolCallEntry => entry.kind === 'tool' && entry.status === 'waiting',
      );
      const ids = new Set(waiting.map((call) => call.callId));
      for (const id of panels.keys()) if (!ids.has(id)) panels.delete(id);
      const key = transcript.running ? [...ids].join('\n') : '';
      if (key === shown) return;
      const wasWaiting = shown !== '';
      shown = key;
      markTitle(key !== '');
      if (key !== '') options.showStatus(waitingStatusText(waiting), review);
      else if (wasWaiting && transcript.running) options.showStatus(runningText);
    },
  };
}
