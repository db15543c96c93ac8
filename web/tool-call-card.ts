/**
 * One tool call as a card: name, status, duration (elapsed time while it runs), the arguments as they stream in, progress
 * events, and the result or error in a collapsible section (errors open by default). A call waiting for
 * approval shows the chat view's approval panel in place of its arguments; an approved one says so.
 */

import type { ToolResultView } from './api-client.ts';
import { h } from './dom.ts';
import { findImages, formatArguments, type ImageLoader, renderToolResult } from './tool-result-view.ts';
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
  const hasImages = call.status === 'succeeded' && findImages(call.result).length > 0;
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
    h(
      'header',
      { class: 'call-header' },
      h('span', { class: 'call-icon', 'aria-hidden': 'true' }, '⚙'),
      h('code', { class: 'call-name' }, call.name),
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
    ),
    approvedNote(call),
    waitingPanel ??
      h(
        'details',
        { class: 'call-arguments', open: true },
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
      ? h(
          'details',
          { class: 'call-result', open: hasImages },
          h('summary', {}, 'Result'),
          renderToolResult(resultView, call.result, loadImage),
        )
      : null,
    failed
      ? h(
          'details',
          { class: 'call-error', open: true },
          h('summary', {}, 'Error'),
          h('p', { class: 'error-text' }, call.error?.message ?? 'Unknown error.'),
        )
      : null,
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
