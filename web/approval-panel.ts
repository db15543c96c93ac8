/**
 * The answer part of a waiting tool card: what the call will do (`approval-request-view.ts`), which
 * setting asked and until when, and the answers — Approve; Deny with an optional reason the model
 * reads; for tools that take command rules, "Always allow…" (a dialog with the command's prefix,
 * editable, saved as a prefix rule) and "Remember this exact command". One answer at a time: the
 * buttons are disabled while it is sent, and stay so once the server took it (the card then changes
 * with the turn's `tool_approval_resolved`). A refusal (404, 409, 422) is shown as an alert in the card;
 * after a 404 or 409 (the call was answered elsewhere, timed out or its turn ended) the answers are
 * removed, since none can be taken any more, and focus stays on the card.
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

type SendOutcome = { taken: ApprovalAnswer } | { refused: string; gone: boolean };

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
  const answers = h('div', { class: 'approval-answers' });
  /** Nothing waits any more: the answers go, the server's message stays, focus stays on the card. */
  const close = () => {
    // The pressed button was disabled while the answer was sent, which drops focus to the page.
    const active = document.activeElement;
    const ours = active === null || active === document.body || answers.contains(active);
    answers.remove();
    sending.hidden = true;
    if (ours) (panel.closest<HTMLElement>('article') ?? panel).focus();
  };

  /**
   * Sends an answer: taken, refused with a message the user can act on (422: correct it and answer
   * again), or gone (404/409: nothing waits any more; the turn's own events tell how the call ended).
   */
  const send = async (body: ApprovalAnswerBody, busyText: string): Promise<SendOutcome> => {
    showProblem('');
    setBusy(true, busyText);
    try {
      const answer = await options.answer(body);
      setBusy(true, body.decision === 'approve' ? 'Approved; the call runs.' : 'Denied.');
      return { taken: answer };
    } catch (error) {
      const message = (error as Error).message;
      const status = (error as { status?: unknown }).status;
      const gone = status === 404 || status === 409;
      setBusy(gone);
      if (gone) showProblem(message);
      return { refused: message, gone };
    }
  };
  /** What follows an answer once no dialog is open (focus is then the page's to place). */
  const settle = (outcome: SendOutcome) => {
    if ('taken' in outcome) options.onAnswered?.(outcome.taken);
    else if (outcome.gone) close();
    else showProblem(outcome.refused);
  };
  const answerNow = async (body: ApprovalAnswerBody, busyText: string) => {
    settle(await send(body, busyText));
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
      button('Always allow…', 'button-secondary', async () => {
        let last: SendOutcome | undefined;
        await askForPrefix(call.name, command, async (prefix) => {
          last = await send(
            { decision: 'approve', rememberPrefix: prefix },
            'Approving and saving the rule…',
          );
          // A refused prefix stays in the dialog to be corrected; a taken or gone answer closes it.
          return 'refused' in last && !last.gone ? last.refused : undefined;
        });
        if (last !== undefined && !('refused' in last && !last.gone)) settle(last);
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

  answers.append(
    h('div', { class: 'approval-actions' }, approve, ruleButtons),
    h(
      'div',
      { class: 'approval-deny' },
      h('label', { for: reasonField.id }, 'Reason for denying (optional, the model reads it)'),
      h('div', { class: 'approval-deny-row' }, reasonField, deny),
    ),
  );
  const panel = h(
    'section',
    { class: 'approval-panel', 'aria-label': `Approve or deny ${call.name}` },
    call.approval?.reason ? h('p', { class: 'approval-reason' }, call.approval.reason) : null,
    renderApprovalRequest(args, call.argumentsText),
    expiryText(call.approval?.expiresAt),
    answers,
    sending,
    problem,
  );
  return panel;
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
