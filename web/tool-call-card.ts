/**
 * One tool call, compact: a line with its name, a short summary of its arguments, status and duration
 * (elapsed time while it runs), which unfolds to the card — the arguments (folded: they are for
 * checking, the line already says what the call does), progress events, and the result in its tool's
 * view or the error. A call waiting for approval shows the chat view's approval panel, unfolded; an
 * answered one keeps what was judged (the command, the edit's diff) and says who answered. Images a call
 * made are shown under its line, outside the fold, and nowhere else in the card.
 */

import type { ToolResultView } from './api-client.ts';
import { parseApprovalArguments, renderApprovalRequest } from './approval-request-view.ts';
import { h } from './dom.ts';
import { readFileEditArguments, renderEditDiff } from './edit-diff-view.ts';
import { argumentSummary } from './tool-call-summary.ts';
import {
  formatArguments,
  type ImageLoader,
  renderResultImages,
  renderToolResult,
} from './tool-result-view.ts';
import type { ToolCallEntry } from './transcript.ts';

const STATUS_TEXT: Record<ToolCallEntry['status'], string> = {
  streaming: 'receiving arguments…',
  running: 'running…',
  waiting: 'waiting for your approval',
  queued: "waiting for the earlier call's approval",
  succeeded: 'done',
  failed: 'failed',
};

export function formatDuration(durationMs: number): string {
  if (durationMs < 1000) return `${Math.round(durationMs)} ms`;
  return `${(durationMs / 1000).toFixed(durationMs < 10_000 ? 2 : 1)} s`;
}

/** A change signature: the card is rebuilt only when this differs from the last render. */
export function toolCallSignature(call: ToolCallEntry): string {
  const approval = call.approval
    ? `${call.approval.decision ?? 'asked'}:${call.approval.by ?? ''}:${call.approval.remembered?.rule ?? ''}`
    : '';
  return `${call.status}|${call.argumentsText.length}|${call.durationMs ?? ''}|${call.progress.length}|${call.error?.message ?? ''}|${approval}`;
}

/** The line an approved call carries: who approved it, and the rule saved with the answer. */
function approvedNote(call: ToolCallEntry): HTMLElement | null {
  if (call.approval?.decision !== 'approved') return null;
  const remembered = call.approval.remembered;
  return h(
    'p',
    { class: 'call-approval' },
    'Approved by you.',
    remembered
      ? [
          ' Saved ',
          h('code', {}, remembered.rule),
          ` in ${remembered.setting}: it runs without asking from now on.`,
        ]
      : null,
  );
}

/** The call's one line: tool, what it works on, how far it got, how long it took. */
function callLine(call: ToolCallEntry, statusText: string, live: boolean): HTMLElement[] {
  const summary = call.status === 'streaming' ? '' : argumentSummary(call.argumentsText);
  return [
    h('span', { class: 'call-icon', 'aria-hidden': 'true' }, '⚙'),
    h('code', { class: 'call-name' }, call.name),
    summary !== '' ? h('span', { class: 'call-summary', title: summary }, summary) : null,
    h('span', { class: `call-status status-${call.status}` }, statusText),
    call.durationMs !== undefined
      ? h('span', { class: 'call-duration' }, formatDuration(call.durationMs))
      : live
        ? // Filled and advanced by the chat view's elapsed-time ticker (`elapsed-time.ts`).
          h('span', {
            class: 'call-duration call-elapsed',
            'data-elapsed-for': call.callId,
            'aria-label': 'elapsed time',
          })
        : null,
  ].filter((node): node is HTMLElement => node !== null);
}

/**
 * What the call was asked to do, in readable form, above its result: an edit's diff (always, for the
 * `file_edit` view: the diff the approval showed stays after the answer and the result), else for a
 * call that asked for approval what was approved or denied (the command, the content written).
 */
function requestView(call: ToolCallEntry, resultView: ToolResultView): HTMLElement | null {
  const args = parseApprovalArguments(call.argumentsText);
  const edit = resultView === 'file_edit' ? readFileEditArguments(args) : undefined;
  if (edit) return renderEditDiff(edit, 'Edit', [], 'call-request', 'approval-diff');
  if (call.approval === undefined || call.status === 'streaming') return null;
  const request = renderApprovalRequest(args, call.argumentsText);
  request.classList.add('call-request');
  return request;
}

/** The folded card's content: the approval's outcome, the request, arguments, progress, result, error. */
function callBody(call: ToolCallEntry, resultView: ToolResultView): HTMLElement {
  return h(
    'div',
    { class: 'call-body' },
    approvedNote(call),
    requestView(call, resultView),
    h(
      'details',
      { class: 'call-arguments' },
      h('summary', {}, 'Arguments'),
      h(
        'pre',
        { class: 'code-block' },
        call.status === 'streaming' ? call.argumentsText : formatArguments(call.argumentsText),
      ),
    ),
    call.progress.length > 0
      ? h(
          'ul',
          { class: 'call-progress' },
          call.progress.map((progress) => h('li', {}, describeProgress(progress))),
        )
      : null,
    call.status === 'succeeded'
      ? h('div', { class: 'call-result' }, renderToolResult(resultView, call.result))
      : null,
    call.status === 'failed'
      ? h(
          'div',
          { class: 'call-error' },
          h('p', { class: 'error-text' }, call.error?.message ?? 'Unknown error.'),
        )
      : null,
  );
}

/**
 * The images a call made, shown once and outside the fold: from its result, or while it runs from the
 * progress events that announce each finished image.
 */
export function callImages(call: ToolCallEntry, loadImage: ImageLoader): HTMLElement | null {
  const gallery = renderResultImages(call.status === 'succeeded' ? call.result : call.progress, loadImage);
  gallery?.classList.add('call-images');
  return gallery;
}

/**
 * One call: a single line (a `<details>` summary: name, argument summary, status, duration) that opens
 * to the card. A waiting call is never folded: its line and the answer panel show as they are. A call
 * that asked for approval opens unfolded, so what the user judged stays in view after the answer.
 */
export function renderToolCallCard(
  call: ToolCallEntry,
  loadImage: ImageLoader,
  resultView: ToolResultView,
  /** The answer panel of a waiting call (`approval-panel.ts`), kept by the chat view across renders. */
  approvalPanel?: HTMLElement,
): HTMLElement {
  const waitingPanel = call.status === 'waiting' ? approvalPanel : undefined;
  const failed = call.status === 'failed';
  const statusText =
    failed && call.error?.classification ? `failed: ${call.error.classification}` : STATUS_TEXT[call.status];
  const live = call.status === 'streaming' || call.status === 'running';
  const line = callLine(call, statusText, live);
  return h(
    'article',
    {
      class: `call-card call-${call.status}`,
      'aria-label': `Tool call ${call.name}, ${statusText}`,
      'data-call-id': call.callId,
      'data-tool': call.name,
      'aria-busy': live ? 'true' : undefined,
      // "Review" in the status line moves focus here; Tab then reaches Approve.
      tabindex: waitingPanel ? -1 : undefined,
    },
    waitingPanel
      ? [h('div', { class: 'call-header' }, line), waitingPanel]
      : h(
          'details',
          { class: 'call-row', open: call.approval !== undefined },
          h('summary', { class: 'call-header' }, line),
          callBody(call, resultView),
        ),
    callImages(call, loadImage),
  );
}

function describeProgress(progress: Record<string, unknown>): string {
  // A `tool_progress` stream event carries the tool's own event in `progress` (older shapes: `event`).
  const nested = progress.progress ?? progress.event;
  const inner =
    typeof nested === 'object' && nested !== null ? (nested as Record<string, unknown>) : progress;
  // The tool's sentence ("image 1 of 2 done") is what the reader wants; the kind only without one.
  if (typeof inner.message === 'string' && inner.message !== '') return inner.message;
  return String(inner.kind ?? inner.type ?? 'progress');
}
