/**
 * The answer part of a waiting tool card: what the call will do (`approval-request-view.ts`), which
 * setting asked and until when, and the answers — Approve; Deny with an optional reason the model
 * reads; for tools that take command rules, "Always allow…" (a dialog with the command's prefix,
 * editable, saved as a prefix rule) and "Remember this exact command". One answer at a time: the
 * buttons are disabled while it is sent, and stay so once the server took it (the card then changes
 * with the turn's `tool_approval_resolved`). A refusal (404, 409, 422) is shown as an alert in the card.
 * The panel element is kept by the chat view for as long as the call waits, so a typed reason survives
 * the card being re-rendered.
 */
import type { ApprovalAnswer, ApprovalAnswerBody } from './api-client.ts';
import {
  commandOf,
  parseApprovalArguments,
  renderApprovalRequest,
  suggestedPrefix,
} from './approval-request-view.ts';
import { confirmWithDialog } from './confirm-dialog.ts';
import { h, uniqueId } from './dom.ts';
import type { ToolCallEntry } from './transcript.ts';

/** Which remembered rules the tool accepts, from the settings its descriptor lists. */
export interface ApprovalRuleSupport {
  /** It has `autoApprovedCommands` (prefix rules). */
  prefix: boolean;
  /** It has `autoApprovedExactCommands`. */
  exact: boolean;
}

export interface ApprovalPanelOptions {
  call: ToolCallEntry;
  rules: ApprovalRuleSupport;
  answer(body: ApprovalAnswerBody): Promise<ApprovalAnswer>;
  /** The server took the answer (before its `tool_approval_resolved` arrives). */
  onAnswered?(answer: ApprovalAnswer): void;
}

/** The longest denial reason the server takes. */
export const MAX_DENIAL_REASON = 2000;

function expiryText(expiresAt: string | undefined): HTMLElement | null {
  if (!expiresAt) return null;
  const date = new Date(expiresAt);
  if (Number.isNaN(date.getTime())) return null;
  return h(
    'p',
    { class: 'approval-expiry' },
    'Denied automatically at ',
    h('time', { datetime: expiresAt }, date.toLocaleTimeString()),
    ' if not answered.',
  );
}

export function createApprovalPanel(options: ApprovalPanelOptions): HTMLElement {
  const { call, rules } = options;
  const args = parseApprovalArguments(call.argumentsText);
  const command = commandOf(args);
  const problem = h('p', { class: 'error-text', role: 'alert', hidden: true });
  const sending = h('p', { class: 'approval-sending', hidden: true });
  const reasonField = h('input', {
    type: 'text',
    id: uniqueId('deny-reason'),
    maxlength: MAX_DENIAL_REASON,
    autocomplete: 'off',
    placeholder: 'e.g. use the test database instead',
  });
  const buttons: HTMLButtonElement[] = [];
  const button = (label: string, className: string, onclick: () => void) => {
    const element = h('button', { type: 'button', class: className, onclick }, label);
    buttons.push(element);
    return element;
  };

  const setBusy = (busy: boolean, text = '') => {
    for (const element of buttons) element.disabled = busy;
    reasonField.disabled = busy;
    sending.textContent = text;
    sending.hidden = text === '';
  };
  const showProblem = (message: string) => {
    problem.textContent = message;
    problem.hidden = message === '';
  };

  /** Sends an answer; resolves with the server's refusal message, or undefined when it was taken. */
  const send = async (body: ApprovalAnswerBody, busyText: string): Promise<string | undefined> => {
    showProblem('');
    setBusy(true, busyText);
    try {
      const answer = await options.answer(body);
      setBusy(true, body.decision === 'approve' ? 'Approved; the call runs.' : 'Denied.');
      options.onAnswered?.(answer);
      return undefined;
    } catch (error) {
      const message = (error as Error).message;
      const status = (error as { status?: unknown }).status;
      // 404/409: nothing is waiting any more; the turn's own events tell how the call ended.
      setBusy(status === 404 || status === 409);
      return message;
    }
  };
  const answerNow = async (body: ApprovalAnswerBody, busyText: string) => {
    const refused = await send(body, busyText);
    if (refused !== undefined) showProblem(refused);
  };

  const approve = button('Approve', 'button-primary', () => {
    void answerNow({ decision: 'approve' }, 'Approving…');
  });
  const deny = button('Deny', 'button-danger', () => {
    const reason = reasonField.value.trim();
    void answerNow({ decision: 'deny', ...(reason ? { reason } : {}) }, 'Denying…');
  });
  reasonField.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && !event.isComposing) {
      event.preventDefault();
      deny.click();
    }
  });

  const ruleButtons: HTMLElement[] = [];
  if (command !== undefined && rules.prefix) {
    ruleButtons.push(
      button('Always allow…', 'button-secondary', () => {
        void askForPrefix(call.name, command, (prefix) =>
          send({ decision: 'approve', rememberPrefix: prefix }, 'Approving and saving the rule…'),
        );
      }),
    );
  }
  if (command !== undefined && rules.exact) {
    ruleButtons.push(
      button('Remember this exact command', 'button-secondary', () => {
        void answerNow({ decision: 'approve', remember: true }, 'Approving and remembering…');
      }),
    );
  }

  return h(
    'section',
    { class: 'approval-panel', 'aria-label': `Approve or deny ${call.name}` },
    call.approval?.reason ? h('p', { class: 'approval-reason' }, call.approval.reason) : null,
    renderApprovalRequest(args, call.argumentsText),
    expiryText(call.approval?.expiresAt),
    h('div', { class: 'approval-actions' }, approve, ruleButtons),
    h(
      'div',
      { class: 'approval-deny' },
      h('label', { for: reasonField.id }, 'Reason for denying (optional, the model reads it)'),
      h('div', { class: 'approval-deny-row' }, reasonField, deny),
    ),
    sending,
    problem,
  );
}

/**
 * The "Always allow…" dialog: the prefix, editable, prefilled with the command's first two words. It
 * closes once the server saved the rule and approved the call; a refused prefix stays to be corrected.
 */
async function askForPrefix(
  toolName: string,
  command: string,
  submit: (prefix: string) => Promise<string | undefined>,
): Promise<void> {
  const field = h('input', {
    type: 'text',
    id: uniqueId('approval-prefix'),
    value: suggestedPrefix(command),
    autocomplete: 'off',
    spellcheck: 'false',
  });
  await confirmWithDialog({
    title: `Always allow these ${toolName} commands?`,
    body: [
      h(
        'p',
        {},
        `Approves this call, and from now on ${toolName} runs without asking any command that starts with these words:`,
      ),
      h('label', { for: field.id }, 'Command prefix'),
      field,
      h(
        'p',
        { class: 'dialog-hint' },
        'Only a single plain command matches: one with ;, &&, |, a redirection, $, a glob or a subshell is still asked about. ',
        'Allowing a command that runs project code (npm test, make) allows whatever that project contains. ',
        'The rule is saved in the tool’s settings (autoApprovedCommands) on the Tools page.',
      ),
    ],
    confirmLabel: 'Allow and run',
    initialFocus: field,
    accept: () => {
      const prefix = field.value.trim();
      if (prefix === '') return Promise.resolve('Enter the words a command must start with.');
      return submit(prefix);
    },
  });
}
