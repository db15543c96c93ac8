/**
 * One open chat: its stored history (`transcript-log.ts`), a composer (`chat-composer.ts`), and the
 * live turn (`chat-turns.ts`) — the answer rendered as markdown as it arrives (`markdown-view.ts`,
 * appended block by block), a card per tool call, and a Cancel button that asks the server to stop
 * the turn. The turn runs on the server whatever the page does:
 * opening the chat while a turn runs (a reload, another tab) shows the history before it and
 * re-attaches to the turn's stream. Entries are rendered keyed, so streaming never resets open sections.
 * A call waiting for approval shows its answer panel (`chat-approvals.ts`); after a reload the turn
 * record's `pendingApprovals` shows it at once, before the replayed stream places it.
 */
import {
  ApiError,
  type ChatSummary,
  type CurrentTurn,
  type ToolResultView,
  type ToolSettingsDescriptor,
} from './api-client.ts';
import { createChatApprovals } from './chat-approvals.ts';
import { createChatComposer } from './chat-composer.ts';
import type { ChatPageOptions } from './chat-page-options.ts';
import { type ChatTitleEditor, createChatTitleEditor } from './chat-title-editor.ts';
import { createChatTurns } from './chat-turns.ts';
import { createDeleteChatButton } from './delete-chat-button.ts';
import { h, replaceChildren } from './dom.ts';
import { createLiveAnnouncer } from './live-announcer.ts';
import { applyPendingApprovals, type Transcript } from './transcript.ts';
import { transcriptFromHistory } from './transcript-from-history.ts';
import { createTranscriptLog } from './transcript-log.ts';
import { totalUsage, usageText } from './usage-text.ts';

export async function renderChatView(
  main: HTMLElement,
  options: ChatPageOptions,
  chatId: string,
): Promise<void> {
  const { api } = options;
  const heading = h('h1', { tabindex: -1 }, 'Chat');
  replaceChildren(main, heading, h('p', { class: 'page-status', role: 'status' }, 'Loading chat…'));
  heading.focus();

  const loaded = await loadChat(api, chatId).catch((error: unknown) => {
    replaceChildren(main, heading, h('p', { class: 'error-text', role: 'alert' }, loadFailure(error)));
    return undefined;
  });
  if (loaded === undefined) return;
  const { transcript, running, tools, resultViewOf } = loaded;
  let chat = loaded.chat;
  const titleEditor = createChatTitleEditor(api, chatId, heading, chat.title);

  const chatUsage = h('p', { class: 'chat-usage' });
  const announcer = createLiveAnnouncer();
  const transcriptLog = createTranscriptLog({
    transcript,
    loadImage: options.loadImage,
    resultViewOf,
    approvalPanelOf: (call) => approvals.panelFor(call),
    announcer,
    afterRender: () => {
      approvals.sync(transcript, turns.runningStatus());
      chatUsage.textContent = chatUsageText(transcript);
    },
  });
  const log = transcriptLog.element;
  const composer = createChatComposer({
    announcer,
    canSend: () => !transcript.running,
    send: (message) => void turns.send(message),
    cancel: () => void turns.cancel(),
  });
  const approvals = createChatApprovals({
    api,
    chatId,
    log,
    showStatus: composer.showStatus,
    changed: () => transcriptLog.scheduleRender(),
    home: composer.textarea,
  });
  approvals.setTools(tools);
  const turns = createChatTurns({
    api,
    chatId,
    transcript,
    composer,
    render: transcriptLog.render,
    scheduleRender: transcriptLog.scheduleRender,
    turnEnded: async () => {
      if (chat.title === 'New chat') chat = await withServerTitle(api, chatId, chat, titleEditor);
    },
  });

  const deleteButton = createDeleteChatButton(api, chatId, options.navigate, composer.showStatus);
  replaceChildren(
    main,
    h(
      'div',
      { class: 'chat-header' },
      h('div', {}, titleEditor.element, chatFacts(chat), chatUsage),
      deleteButton,
    ),
    log,
    composer.element,
    announcer.element,
  );
  transcriptLog.render();
  log.scrollTop = log.scrollHeight;
  composer.textarea.focus();
  if (running) void turns.follow();
}

/** The chat's provider, model and working directory, in one line under its title. */
function chatFacts(chat: ChatSummary): HTMLElement {
  const facts = [`${chat.provider} · ${chat.model}`];
  if (chat.workingDirectory)
    facts.push(`in ${chat.workingDirectory}${chat.confined === false ? ' (reaches all my workspaces)' : ''}`);
  return h('p', { class: 'chat-meta' }, facts.join(' — '));
}

interface LoadedChat {
  chat: ChatSummary;
  /** The turn running now, to re-attach to; undefined when none runs. */
  running: CurrentTurn | undefined;
  transcript: Transcript;
  /** The tools' descriptors; empty when the list failed to load. */
  tools: ToolSettingsDescriptor[];
  /** How each tool's results are shown; `json` (the generic view) for a tool not in the list. */
  resultViewOf: (toolName: string) => ToolResultView;
}

/**
 * The server names a "New chat" after its first message: the chat reloaded, with the title it got shown
 * in the heading (the chat as it was when the reload failed).
 */
async function withServerTitle(
  api: ChatPageOptions['api'],
  chatId: string,
  chat: ChatSummary,
  titleEditor: ChatTitleEditor,
): Promise<ChatSummary> {
  const reloaded = await api.getChat(chatId).catch(() => undefined);
  if (!reloaded) return chat;
  titleEditor.setTitle(reloaded.title);
  return reloaded;
}

/** What the page says when the chat could not be loaded. */
function loadFailure(error: unknown): string {
  return error instanceof ApiError && error.status === 404
    ? 'This chat does not exist.'
    : `Could not load the chat: ${(error as Error).message}`;
}

/** The whole chat's token usage, or '' before any turn reported some. */
function chatUsageText(transcript: Transcript): string {
  const usages = transcript.entries.filter((entry) => entry.kind === 'usage');
  return usages.length > 0 ? `This chat: ${usageText(totalUsage(usages))}` : '';
}

/** The chat, its running turn and the transcript up to where that turn's stream takes over. */
async function loadChat(api: ChatPageOptions['api'], chatId: string): Promise<LoadedChat> {
  const [chat, current, tools] = await Promise.all([
    api.getChat(chatId),
    api.currentTurn(chatId),
    api.listTools().catch(() => []),
  ]);
  const running = current?.state === 'running' ? current : undefined;
  // A running turn is replayed from its stream: from the history only what came before it and the
  // turn's first item (the user's message, which is not a stream event).
  const end = running ? running.messageSeqAtStart + 1 : Number.POSITIVE_INFINITY;
  const before = chat.messages.filter((message) => (message.seq ?? 0) <= end);
  const transcript = transcriptFromHistory(before, chat.turns);
  if (running) applyPendingApprovals(transcript, running.pendingApprovals ?? []);
  // Each tool declares how its results are shown; without the list (e.g. it failed to load) every
  // result gets the generic view, and the chat itself still opens.
  const resultViews = new Map(tools.map((tool) => [tool.name, tool.resultView]));
  return { chat, running, transcript, tools, resultViewOf: (name) => resultViews.get(name) ?? 'json' };
}
