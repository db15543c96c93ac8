/**
 * The chat view's reruns (docs/web.md, "Message actions"): which user message is being edited, the
 * Edit button or form of each user message, the Regenerate / Retry bar, and running a rerun through
 * the view's one turn stream. The part a rerun replaces leaves the page before the rerun starts, after
 * a confirmation when it called tools (their effects stay); a rerun the server refused shows the chat
 * as the server kept it (`reload`).
 */
import type { ApiClient } from './api-client.ts';
import { sentAttachments } from './attachment-chips.ts';
import { confirmWithDialog } from './confirm-dialog.ts';
import { h } from './dom.ts';
import type { Transcript, TranscriptEntry } from './transcript-entries.ts';
import { transcriptFromHistory } from './transcript-from-history.ts';
import { EFFECTS_NOT_UNDONE, editButton, editForm, rerunBar } from './transcript-message-actions.ts';
import {
  lastUserEntry,
  replaceFrom,
  replacesToolCalls,
  rerunAction,
  storedMessageId,
} from './transcript-reruns.ts';

type UserEntry = TranscriptEntry & { kind: 'user' };
type RerunRequest = { kind: 'regenerate' | 'retry' } | { kind: 'edit'; entry: UserEntry; text: string };

export interface RerunControllerOptions {
  api: ApiClient;
  chatId: string;
  /** The transcript's log, where Cancel of an edit puts the focus back. */
  log: HTMLElement;
  /** The view's transcript, changed in place. */
  transcript: Transcript;
  render: () => void;
  /** Streams a turn the view opens with `open` (as a new turn's), the page showing it. */
  stream: (open: (signal: AbortSignal) => Promise<Response>) => Promise<void>;
  /** Where what a rerun does is spoken (the chat's live announcer). */
  announcer: { announce(text: string): void };
  showStatus: (text: string) => void;
}

export interface RerunController {
  /** Where the Regenerate / Retry bar goes: under the transcript, outside its log. */
  slot: HTMLElement;
  /** A user message's node: its text and Edit button, or its edit form; the same node until that changes. */
  userNode(entry: UserEntry): HTMLElement;
  /** Shows the bar the transcript calls for now, or none. */
  syncBar(): void;
  /** Reads the chat again, as the server kept it. */
  reload(): Promise<void>;
}

export function createRerunController(options: RerunControllerOptions): RerunController {
  const { api, chatId } = options;
  const { transcript } = options;
  let editing: UserEntry | undefined;
  const slot = h('div', { class: 'rerun-slot' });
  /** Each user entry's node and what it showed, so streaming does not rebuild them. */
  const nodes = new WeakMap<UserEntry, { node: HTMLElement; signature: string }>();

  const rerun = async (request: RerunRequest) => {
    if (transcript.running) return;
    const entry = request.kind === 'edit' ? request.entry : lastUserEntry(transcript);
    if (!entry) return;
    if (request.kind !== 'edit') {
      const after = transcript.entries.slice(transcript.entries.indexOf(entry) + 1);
      const retry = request.kind === 'retry';
      const confirmed =
        !replacesToolCalls(after) ||
        (await confirmWithDialog({
          title: retry ? 'Retry your last message?' : 'Regenerate the answer?',
          body: h('p', {}, `The answer is replaced. ${EFFECTS_NOT_UNDONE}`),
          confirmLabel: retry ? 'Retry' : 'Regenerate',
        }));
      if (!confirmed) return;
    }
    let messageId = '';
    if (request.kind === 'edit') {
      const shown = await api.getChat(chatId).catch(() => undefined);
      const found = shown ? storedMessageId(transcript, entry, shown.messages) : undefined;
      if (found === undefined) {
        options.showStatus(
          'This chat changed since the page showed it (another tab?). Reload the page, then edit again.',
        );
        return;
      }
      messageId = found;
    }
    editing = undefined;
    replaceFrom(transcript, entry, request.kind !== 'edit');
    // An edit keeps the message's attachments (the server does too).
    if (request.kind === 'edit')
      transcript.entries.push({ kind: 'user', text: request.text, attachments: entry.attachments });
    const said = { edit: 'Your edited message was sent.', retry: 'Retrying…', regenerate: 'Regenerating…' };
    options.announcer.announce(said[request.kind]);
    await options.stream((signal) =>
      request.kind === 'edit'
        ? api.editMessage(chatId, messageId, request.text, signal)
        : api.rerunTurn(chatId, request.kind, signal),
    );
  };

  const buildUserNode = (entry: UserEntry): HTMLElement => {
    const node = h(
      'div',
      { class: 'message message-user' },
      h('span', { class: 'visually-hidden' }, 'You: '),
    );
    if (editing === entry) {
      const form = editForm({
        text: entry.text,
        submit: (text) => void rerun({ kind: 'edit', entry, text }),
        cancel: () => {
          editing = undefined;
          options.render();
          options.log.querySelector<HTMLElement>('.message-edit-button')?.focus();
        },
      });
      node.classList.add('message-editing');
      node.append(form.element);
      queueMicrotask(form.focus);
      return node;
    }
    node.append(entry.text);
    const attached = sentAttachments(entry.attachments);
    if (attached) node.append(attached);
    // Present while a turn runs too (disabled, and hidden by the style), so the message's height never
    // changes when the turn ends: a reader scrolled up keeps exactly what they read.
    const button = editButton(entry.text, () => {
      editing = entry;
      options.render();
    });
    button.disabled = transcript.running;
    node.append(button);
    return node;
  };

  return {
    slot,
    userNode(entry) {
      const signature = `${entry.text}:${transcript.running}:${editing === entry}`;
      const known = nodes.get(entry);
      if (known?.signature === signature) return known.node;
      const node = buildUserNode(entry);
      nodes.set(entry, { node, signature });
      return node;
    },
    syncBar() {
      const action = editing === undefined ? rerunAction(transcript) : undefined;
      if (action === (slot.firstElementChild?.getAttribute('data-kind') ?? undefined)) return;
      const bar = action ? rerunBar(action, () => void rerun({ kind: action })) : undefined;
      bar?.setAttribute('data-kind', action ?? '');
      slot.replaceChildren(...(bar ? [bar] : []));
    },
    async reload() {
      const reloaded = await api.getChat(chatId).catch(() => undefined);
      if (!reloaded) return;
      const kept = transcriptFromHistory(reloaded.messages, reloaded.turns);
      Object.assign(transcript, { doneReason: undefined, turnUsage: undefined }, kept);
    },
  };
}
